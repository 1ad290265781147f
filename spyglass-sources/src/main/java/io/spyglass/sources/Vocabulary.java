package io.spyglass.sources;

/**
 * The values {@link EventGenerator} draws from, pre-encoded: countries, devices, browsers, pages,
 * user agents and the rest. The first values are the most frequent where a skew is given.
 */
final class Vocabulary {
  private Vocabulary() {}

  static final ValuePool COUNTRIES =
      ValuePool.strings(
          1.1, "US", "IN", "BR", "GB", "DE", "FR", "JP", "CA", "MX", "ID", "IT", "ES", "AU", "KR",
          "RU", "TR", "NL", "PH", "VN", "TH", "PL", "AR", "SA", "EG", "NG", "ZA", "CO", "MY", "SE",
          "BE", "CH", "AT", "PK", "BD", "UA", "CL", "PE", "IL", "IE", "NZ", "SG", "AE", "NO", "DK",
          "FI", "PT", "GR", "CZ", "RO", "HU");
  static final ValuePool DEVICES =
      ValuePool.strings(
          1.3,
          "mobile",
          "desktop",
          "tablet",
          "smart_tv",
          "console",
          "watch",
          "ereader",
          "car",
          "speaker",
          "kiosk",
          "vr_headset",
          "unknown");
  static final ValuePool BROWSERS =
      ValuePool.strings(
          1.4,
          "chrome",
          "safari",
          "edge",
          "firefox",
          "samsung_internet",
          "opera",
          "uc_browser",
          "brave",
          "yandex",
          "vivaldi",
          "ie");
  static final ValuePool BROWSER_VERSIONS =
      ValuePool.strings(
          1.0,
          "124.0.6367.91",
          "123.0.6312.122",
          "17.4.1",
          "125.0",
          "124.0.2478.80",
          "16.6",
          "109.0.5414.120",
          "25.0.1.2",
          "11.0");
  static final ValuePool GENDERS = ValuePool.strings(0.6, "female", "male", "unknown", "nonbinary");
  static final ValuePool LANGUAGES =
      ValuePool.strings(
          1.2, "en", "es", "pt", "hi", "de", "fr", "ja", "zh", "ar", "ru", "id", "it", "ko", "tr");
  static final ValuePool REGIONS =
      ValuePool.strings(
          1.0,
          "california",
          "texas",
          "maharashtra",
          "sao_paulo",
          "england",
          "bavaria",
          "ile_de_france",
          "tokyo",
          "ontario",
          "new_york",
          "florida",
          "karnataka",
          "jalisco",
          "java",
          "lombardy",
          "catalonia",
          "new_south_wales",
          "gyeonggi",
          "moscow",
          "istanbul");
  static final ValuePool CITIES =
      ValuePool.strings(
          1.0,
          "Los Angeles",
          "Houston",
          "Mumbai",
          "São Paulo",
          "London",
          "Munich",
          "Paris",
          "Tokyo",
          "Toronto",
          "New York",
          "Miami",
          "Bengaluru",
          "Guadalajara",
          "Jakarta",
          "Milan",
          "Barcelona",
          "Sydney",
          "Suwon",
          "Moscow",
          "Istanbul",
          "Chicago",
          "Delhi",
          "Lagos",
          "Cairo",
          "Seoul");
  static final ValuePool INCOME_BANDS =
      ValuePool.strings(0.3, "25k-50k", "50k-100k", "<25k", "100k-200k", ">200k");
  static final ValuePool EVENT_TYPES =
      ValuePool.strings(
          1.2,
          "page_view",
          "impression",
          "click",
          "scroll",
          "search",
          "video_play",
          "add_to_cart",
          "login",
          "share",
          "purchase",
          "logout",
          "error");
  static final ValuePool STATUS =
      ValuePool.numbers(2.2, 200, 304, 302, 404, 204, 500, 301, 403, 401, 503, 429, 400, 502);
  static final ValuePool OS_NAMES =
      ValuePool.strings(
          1.1, "android", "ios", "windows", "macos", "linux", "chromeos", "tvos", "tizen");
  static final ValuePool OS_VERSIONS =
      ValuePool.strings(1.0, "14", "17.4.1", "10", "13", "14.4.1", "11", "16.7.7", "12", "22.04");
  static final ValuePool PAGES =
      ValuePool.strings(
          1.1,
          "https://www.example.com/",
          "https://www.example.com/news/world",
          "https://www.example.com/sports/football/scores",
          "https://www.example.com/finance",
          "https://www.example.com/search",
          "https://shop.example.com/cart",
          "https://shop.example.com/product/8841",
          "https://mail.example.com/inbox",
          "https://www.example.com/weather/local",
          "https://www.example.com/entertainment/tv",
          "https://video.example.com/watch/a81kz",
          "https://www.example.com/account/settings",
          "https://answers.example.com/question/7731",
          "https://www.example.com/lifestyle/food");
  static final ValuePool REFERRERS =
      ValuePool.strings(
          1.0,
          "https://www.google.com/",
          "https://www.bing.com/",
          "https://t.co/",
          "https://www.facebook.com/",
          "https://news.ycombinator.com/",
          "https://duckduckgo.com/",
          "https://www.reddit.com/");
  static final ValuePool DOMAINS =
      ValuePool.strings(
          1.2,
          "www.example.com",
          "shop.example.com",
          "video.example.com",
          "mail.example.com",
          "answers.example.com",
          "m.example.com");
  static final ValuePool METHODS =
      ValuePool.strings(2.5, "GET", "POST", "PUT", "HEAD", "DELETE", "OPTIONS");
  static final ValuePool CURRENCIES =
      ValuePool.strings(1.3, "USD", "EUR", "GBP", "INR", "JPY", "BRL");
  static final ValuePool QUERIES =
      ValuePool.strings(
          1.0,
          "weather tomorrow",
          "cheap flights",
          "football scores",
          "best laptop 2024",
          "pasta recipe",
          "stock market today",
          "news",
          "running shoes",
          "movie times near me",
          "how to tie a tie",
          "translate spanish",
          "nba playoffs",
          "mortgage rates",
          "flu symptoms");
  static final ValuePool STUDENTS =
      ValuePool.strings(
          0.0, "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
          "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "uma", "victor",
          "walter", "xena", "yuri", "zoe", "amir", "bea", "chen", "dara", "emeka", "farah",
          "goran");
  static final ValuePool TAGS =
      ValuePool.strings(
          1.0,
          "sports",
          "news",
          "finance",
          "politics",
          "tech",
          "music",
          "movies",
          "travel",
          "food",
          "health",
          "science",
          "gaming",
          "fashion",
          "autos",
          "weather",
          "celebrity",
          "education",
          "parenting",
          "pets",
          "realestate",
          "crypto",
          "fitness",
          "diy",
          "books",
          "art");
  static final ValuePool TIMEZONES =
      ValuePool.strings(
          1.0,
          "America/New_York",
          "America/Los_Angeles",
          "Asia/Kolkata",
          "America/Sao_Paulo",
          "Europe/London",
          "Europe/Berlin",
          "Europe/Paris",
          "Asia/Tokyo",
          "America/Toronto",
          "America/Chicago",
          "Asia/Jakarta",
          "Australia/Sydney",
          "Asia/Seoul",
          "Africa/Lagos");
  static final ValuePool MODELS =
      ValuePool.strings(
          1.0,
          "iPhone 15",
          "Galaxy S24",
          "Pixel 8",
          "iPhone 13",
          "Redmi Note 13",
          "MacBook Air",
          "ThinkPad X1",
          "Galaxy Tab S9",
          "iPad Air",
          "OnePlus 12",
          "XPS 13",
          "Surface Pro 9",
          "Bravia XR",
          "PlayStation 5");
  static final ValuePool NETWORKS = ValuePool.strings(1.0, "wifi", "4g", "5g", "ethernet", "3g");
  static final ValuePool CARRIERS =
      ValuePool.strings(
          1.0,
          "Verizon",
          "AT&T",
          "T-Mobile",
          "Jio",
          "Airtel",
          "Vodafone",
          "Orange",
          "Claro",
          "Telcel",
          "Docomo",
          "Telstra");
  static final ValuePool APP_NAMES =
      ValuePool.strings(1.0, "web", "ios_app", "android_app", "tv_app");
  static final ValuePool APP_VERSIONS =
      ValuePool.strings(1.0, "5.12.3", "5.12.2", "5.11.0", "5.10.7", "4.9.1");
  static final ValuePool PLATFORMS = ValuePool.strings(1.0, "web", "ios", "android", "tvos");
  static final ValuePool TITLES =
      ValuePool.strings(
          1.0,
          "Home",
          "World News",
          "Live Scores",
          "Markets",
          "Search Results",
          "Your Cart",
          "Product Details",
          "Inbox",
          "Local Weather",
          "TV Listings",
          "Watch",
          "Settings",
          "Answers",
          "Recipes");
  static final ValuePool SECTIONS =
      ValuePool.strings(
          1.0,
          "home",
          "news",
          "sports",
          "finance",
          "search",
          "shopping",
          "mail",
          "weather",
          "entertainment",
          "video",
          "account",
          "lifestyle");
  static final ValuePool CAMPAIGNS =
      ValuePool.strings(
          1.0,
          "spring_sale",
          "brand_awareness",
          "retargeting_q2",
          "app_install",
          "back_to_school",
          "holiday_promo",
          "new_user_offer",
          "video_preroll",
          "local_dealers",
          "premium_trial");
  static final ValuePool USER_AGENTS =
      ValuePool.strings(
          1.2,
          "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko)"
              + " Chrome/124.0.6367.91 Mobile Safari/537.36",
          "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML,"
              + " like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1",
          "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko)"
              + " Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.80",
          "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like"
              + " Gecko) Version/17.4.1 Safari/605.1.15",
          "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
          "Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko)"
              + " SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36");
  static final ValuePool DATACENTERS =
      ValuePool.strings(
          0.8,
          "us-east-1",
          "us-west-2",
          "eu-west-1",
          "eu-central-1",
          "ap-south-1",
          "ap-northeast-1",
          "sa-east-1");
}
