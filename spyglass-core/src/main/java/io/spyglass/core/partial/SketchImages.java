package io.spyglass.core.partial;

/**
 * Checks of DataSketches' serialized images, made before DataSketches allocates from the counts
 * their headers declare.
 */
final class SketchImages {
  private SketchImages() {}

  /** Unions a compact theta image (checked first) into {@code union}. */
  static void unionThetaImage(Sketches.Distinct union, byte[] image) {
    if (image.length < 8) {
      throw new PartialFormatException("theta image of " + image.length + " bytes is too short");
    }
    int preLongs = image[0] & 0x3F;
    if (preLongs < 1 || preLongs > 3) {
      throw new PartialFormatException("theta image has bad preamble size " + preLongs);
    }
    if (preLongs > 1) {
      if (image.length < 16) {
        throw new PartialFormatException("theta image truncated");
      }
      long entries = littleEndianInt(image, 8) & 0xFFFFFFFFL;
      if (preLongs * 8L + entries * 8L > image.length) {
        throw new PartialFormatException(
            "theta image declares " + entries + " entries but has " + image.length + " bytes");
      }
    }
    union.unionImage(image);
  }

  /** Checks a frequent-items image header against the expected maximum map size. */
  static void checkFrequencyImage(byte[] image, int maxMapSize) {
    if (image.length < 8) {
      throw new PartialFormatException("frequency image of " + image.length + " bytes too short");
    }
    int preLongs = image[0] & 0x3F;
    int lgMax = image[3] & 0xFF;
    int lgCur = image[4] & 0xFF;
    if (lgMax != Integer.numberOfTrailingZeros(maxMapSize) || lgCur > lgMax) {
      throw new PartialFormatException(
          "frequency image map sizes 2^" + lgCur + "/2^" + lgMax + " do not match " + maxMapSize);
    }
    if (preLongs > 1) {
      if (image.length < 32) {
        throw new PartialFormatException("frequency image truncated");
      }
      long active = littleEndianInt(image, 8) & 0xFFFFFFFFL;
      if (preLongs * 8L + active * 9L > image.length) {
        throw new PartialFormatException(
            "frequency image declares " + active + " items but has " + image.length + " bytes");
      }
    }
  }

  /** Checks that a classic quantiles image was built with {@code k}. */
  static void checkQuantilesImage(byte[] image, int k) {
    if (image.length < 8) {
      throw new PartialFormatException("quantiles image of " + image.length + " bytes too short");
    }
    int imageK = (image[4] & 0xFF) | ((image[5] & 0xFF) << 8);
    if (imageK != k) {
      throw new PartialFormatException("quantiles image has k=" + imageK + ", expected " + k);
    }
  }

  static boolean isPowerOfTwo(int n) {
    return n > 0 && (n & (n - 1)) == 0;
  }

  private static int littleEndianInt(byte[] b, int off) {
    return (b[off] & 0xFF)
        | (b[off + 1] & 0xFF) << 8
        | (b[off + 2] & 0xFF) << 16
        | (b[off + 3] & 0xFF) << 24;
  }
}
