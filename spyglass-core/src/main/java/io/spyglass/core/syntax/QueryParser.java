package io.spyglass.core.syntax;

import io.spyglass.core.syntax.internal.BqlLexer;
import io.spyglass.core.syntax.internal.BqlParser;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.antlr.v4.runtime.BailErrorStrategy;
import org.antlr.v4.runtime.BaseErrorListener;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.Parser;
import org.antlr.v4.runtime.ParserRuleContext;
import org.antlr.v4.runtime.RecognitionException;
import org.antlr.v4.runtime.Recognizer;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.Vocabulary;
import org.antlr.v4.runtime.atn.PredictionMode;
import org.antlr.v4.runtime.misc.IntervalSet;
import org.antlr.v4.runtime.misc.ParseCancellationException;
import org.antlr.v4.runtime.tree.ParseTree;

/**
 * Parses BQL text into a positioned {@link Query}. Stateless and thread-safe.
 *
 * <p>Every failure is a {@link BqlException} whose errors carry the span of the offending text:
 * syntax errors name the unexpected token and the tokens that would have been accepted.
 */
public final class QueryParser {
  /**
   * Deepest nesting accepted: of parentheses, brackets and prefix operators before parsing, and of
   * expressions after; well within every stage's stack.
   */
  public static final int MAX_NESTING = 128;

  private QueryParser() {}

  /**
   * Parses one query, with an optional trailing semicolon.
   *
   * @param maxLength longest text accepted, in characters
   * @throws BqlException if the text is too long, nested too deeply or not valid BQL
   */
  public static Select parse(String text, int maxLength) {
    if (text.length() > maxLength) {
      throw new BqlException(
          new BqlError(
              spanAt(text, maxLength),
              "The query is "
                  + text.length()
                  + " characters long, longer than the maximum of "
                  + maxLength,
              "Shorten the query"));
    }
    BqlLexer lexer = new BqlLexer(CharStreams.fromString(text));
    lexer.removeErrorListeners();
    CommonTokenStream tokens = new CommonTokenStream(lexer);
    tokens.fill();
    checkNesting(tokens.getTokens());
    BqlParser.StatementContext statement = statement(tokens, PredictionMode.SLL);
    if (statement == null) {
      tokens.seek(0);
      statement = statement(tokens, PredictionMode.LL);
    }
    checkDepth(statement);
    AstBuilder builder = new AstBuilder();
    Select query = builder.query(statement.query());
    if (!builder.errors().isEmpty()) {
      throw new BqlException(builder.errors());
    }
    return query;
  }

  /**
   * Parses the statement in {@code tokens}. In {@link PredictionMode#SLL} (fast: its decisions are
   * cached; the queries of the tests all parse in it, to the trees full LL gives) a syntax error
   * returns null, so that the caller tries again in full {@link PredictionMode#LL}, which is exact
   * and reports the error with its position.
   */
  static BqlParser.StatementContext statement(CommonTokenStream tokens, PredictionMode mode) {
    BqlParser parser = new BqlParser(tokens);
    parser.getInterpreter().setPredictionMode(mode);
    parser.removeErrorListeners();
    if (mode == PredictionMode.SLL) {
      parser.setErrorHandler(new BailErrorStrategy());
      try {
        return parser.statement();
      } catch (ParseCancellationException e) {
        return null;
      }
    }
    parser.addErrorListener(new FirstErrorListener());
    try {
      return parser.statement();
    } catch (SyntaxError e) {
      throw new BqlException(e.error);
    }
  }

  /** Token types of the brackets that nest: '(' and '[', and their closing ones. */
  private static final int OPEN_PAREN = literalType("'('"),
      OPEN_BRACKET = literalType("'['"),
      CLOSE_PAREN = literalType("')'"),
      CLOSE_BRACKET = literalType("']'");

  private static int literalType(String literal) {
    Vocabulary v = BqlLexer.VOCABULARY;
    for (int type = 0; type <= v.getMaxTokenType(); type++) {
      if (literal.equals(v.getLiteralName(type))) {
        return type;
      }
    }
    throw new IllegalStateException("the grammar has no token " + literal);
  }

  /**
   * Bounds what the parser nests before it parses: parentheses and brackets, and prefix operators
   * ({@code NOT}, {@code SIZEOF}, a sign) in a row, which the parser takes one within another.
   */
  private static void checkNesting(List<Token> tokens) {
    // prefix operators waiting for their operand, per open parenthesis or bracket
    Deque<Integer> pending = new ArrayDeque<>();
    int run = 0;
    int depth = 0;
    Token previous = null;
    for (Token token : tokens) {
      if (token.getChannel() != Token.DEFAULT_CHANNEL) {
        continue;
      }
      int type = token.getType();
      if (type == OPEN_PAREN || type == OPEN_BRACKET) {
        pending.push(run);
        depth += 1 + run;
        run = 0;
      } else if (type == CLOSE_PAREN || type == CLOSE_BRACKET) {
        if (!pending.isEmpty()) {
          depth -= 1 + pending.pop();
        }
        run = 0;
      } else if (isPrefix(token, previous)) {
        run++;
      } else {
        run = 0;
      }
      if (depth + run > MAX_NESTING) {
        throw tooDeep(AstBuilder.span(token));
      }
      previous = token;
    }
  }

  private static boolean isPrefix(Token token, Token previous) {
    int type = token.getType();
    if (type == BqlLexer.NOT || type == BqlLexer.SIZEOF) {
      return true;
    }
    if (type != BqlLexer.MINUS && type != BqlLexer.PLUS) {
      return false;
    }
    if (previous == null) {
      return true;
    }
    int p = previous.getType();
    boolean endsOperand =
        p == CLOSE_PAREN
            || p == CLOSE_BRACKET
            || p == BqlLexer.IDENTIFIER
            || p == BqlLexer.QUOTED_IDENTIFIER
            || p == BqlLexer.DIGIT_IDENTIFIER
            || p == BqlLexer.STRING
            || p == BqlLexer.INTEGER_VALUE
            || p == BqlLexer.LONG_VALUE
            || p == BqlLexer.DOUBLE_VALUE
            || p == BqlLexer.FLOAT_VALUE
            || p == BqlLexer.NULL
            || p == BqlLexer.TRUE
            || p == BqlLexer.FALSE;
    return !endsOperand;
  }

  /**
   * Bounds the depth of expressions, counted on the parse tree without recursion: each operator,
   * call, parenthesis or subfield is a level, but a chain of AND or of OR is one level however
   * long, as later stages hold it flat.
   */
  private static void checkDepth(ParserRuleContext root) {
    Deque<ParseTree> nodes = new ArrayDeque<>();
    Deque<Integer> depths = new ArrayDeque<>();
    nodes.push(root);
    depths.push(0);
    while (!nodes.isEmpty()) {
      ParseTree node = nodes.pop();
      int depth = depths.pop();
      for (int i = 0; i < node.getChildCount(); i++) {
        ParseTree child = node.getChild(i);
        if (!(child instanceof ParserRuleContext)) {
          continue;
        }
        int childDepth = depth;
        if (child instanceof BqlParser.ExpressionContext && !continuesChain(node, child)) {
          childDepth++;
          if (childDepth > MAX_NESTING) {
            throw tooDeep(AstBuilder.span((ParserRuleContext) child));
          }
        }
        nodes.push(child);
        depths.push(childDepth);
      }
    }
  }

  /** Whether {@code child} is the left operand of {@code parent} in one AND or OR chain. */
  private static boolean continuesChain(ParseTree parent, ParseTree child) {
    return parent instanceof BqlParser.BinaryContext p
        && child instanceof BqlParser.BinaryContext c
        && p.left == c
        && p.op.getType() == c.op.getType()
        && (p.op.getType() == BqlParser.AND || p.op.getType() == BqlParser.OR);
  }

  private static BqlException tooDeep(Span span) {
    return new BqlException(
        new BqlError(
            span,
            "The query is nested more than " + MAX_NESTING + " deep here",
            "Simplify the query: nest fewer parentheses, brackets, prefix operators (NOT, SIZEOF,"
                + " -) and operators within operators"));
  }

  private static Span spanAt(String text, int offset) {
    int line = 1;
    int column = 1;
    for (int i = 0; i < offset && i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return new Span(line, column, offset, text.length());
  }

  /** Stops the parse at the first syntax error: later ones are mostly echoes of it. */
  private static final class FirstErrorListener extends BaseErrorListener {
    @Override
    public void syntaxError(
        Recognizer<?, ?> recognizer,
        Object offendingSymbol,
        int line,
        int charPositionInLine,
        String msg,
        RecognitionException e) {
      Token token = (Token) offendingSymbol;
      Span span =
          token == null
              ? new Span(line, charPositionInLine + 1, 0, 0)
              : new Span(
                  line,
                  charPositionInLine + 1,
                  token.getStartIndex(),
                  Math.max(token.getStartIndex(), token.getStopIndex() + 1));
      String expected = "";
      if (recognizer instanceof Parser parser) {
        IntervalSet set =
            e != null && e.getExpectedTokens() != null
                ? e.getExpectedTokens()
                : parser.getExpectedTokens();
        expected = expected(set, parser);
      }
      String message = unexpected(token);
      String lookAlike = token == null ? null : lookAlike(token.getText());
      String resolution =
          lookAlike != null
              ? lookAlike
              : expected.isEmpty() ? "Check the query near this point" : "Expected " + expected;
      throw new SyntaxError(new BqlError(span, message, resolution));
    }
  }

  private static String unexpected(Token token) {
    if (token == null || token.getType() == Token.EOF) {
      return "Unexpected end of query";
    }
    String text = token.getText();
    if (token.getType() == BqlLexer.UNRECOGNIZED) {
      if (text.equals("'")) {
        return "Unterminated string: a ' without its closing '";
      }
      if (text.equals("\"")) {
        return "Unterminated quoted name: a \" without its closing \"";
      }
      return "Unexpected character '" + text + "'";
    }
    return "Unexpected '" + text + "'";
  }

  /**
   * What the parser would have taken, in plain words: where an expression may start, "a value, a
   * field or a function" instead of the dozens of tokens that can start one, then whatever else
   * could come.
   */
  private static String expected(IntervalSet set, Parser parser) {
    IntervalSet first =
        parser.getATN().nextTokens(parser.getATN().ruleToStartState[BqlParser.RULE_expression]);
    Vocabulary vocabulary = parser.getVocabulary();
    if (!set.contains(BqlLexer.IDENTIFIER) || !set.and(first).equals(first)) {
      return describe(set, vocabulary);
    }
    String rest = describe(set.subtract(first), vocabulary);
    return "a value, a field or a function" + (rest.isEmpty() ? "" : ", or " + rest);
  }

  /**
   * Characters that look like BQL's own but are not: full-width forms, typographic quotes and
   * dashes, comparison signs. Each with what to write instead.
   */
  private static final String[][] LOOK_ALIKES = {
    {"\u2018\u2019\u201a\u201b\u2032", "'"},
    {"\u201c\u201d\u201e\u201f\u2033", "\""},
    {"\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"},
    {"\u00d7\u2217", "*"},
    {"\u00f7\u2215", "/"},
    {"\u2260", "!="},
    {"\u2264", "<="},
    {"\u2265", ">="},
    {
      "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u200b"
          + "\u202f\u205f\u3000\ufeff",
      " "
    },
  };

  /**
   * When {@code text} is one character that only looks like one of BQL's, what to write instead;
   * else null.
   */
  static String lookAlike(String text) {
    if (text == null || text.codePointCount(0, text.length()) != 1 || text.charAt(0) < 0x80) {
      return null;
    }
    String instead = null;
    for (String[] group : LOOK_ALIKES) {
      if (group[0].contains(text)) {
        instead = group[1];
      }
    }
    if (instead == null) {
      String normal = java.text.Normalizer.normalize(text, java.text.Normalizer.Form.NFKC);
      if (normal.length() == 1 && normal.charAt(0) > 0x20 && normal.charAt(0) < 0x7f) {
        instead = normal;
      }
    }
    if (instead == null) {
      return null;
    }
    String name = Character.getName(text.codePointAt(0));
    return "Write "
        + (instead.equals(" ") ? "a plain space" : instead)
        + " instead: '"
        + text
        + "' (U+"
        + String.format("%04X", text.codePointAt(0))
        + (name == null ? "" : " " + name)
        + ") only looks like it";
  }

  /** The expected tokens in plain words: keywords and symbols as written, the rest described. */
  private static String describe(IntervalSet set, Vocabulary vocabulary) {
    Set<String> words = new TreeSet<>();
    for (int type : set.toList()) {
      words.add(word(type, vocabulary));
    }
    words.remove("");
    List<String> list = new ArrayList<>(words);
    if (list.size() > 15) {
      list = new ArrayList<>(list.subList(0, 15));
      list.add("...");
    }
    return list.isEmpty() ? "" : "one of: " + String.join(", ", list);
  }

  private static String word(int type, Vocabulary vocabulary) {
    switch (type) {
      case Token.EOF:
        return "the end of the query";
      case BqlLexer.IDENTIFIER:
      case BqlLexer.QUOTED_IDENTIFIER:
      case BqlLexer.DIGIT_IDENTIFIER:
        return "a name";
      case BqlLexer.STRING:
        return "a 'string'";
      case BqlLexer.INTEGER_VALUE:
      case BqlLexer.LONG_VALUE:
      case BqlLexer.DOUBLE_VALUE:
      case BqlLexer.FLOAT_VALUE:
        return "a number";
      case BqlLexer.DURATION_VALUE:
        return "a duration such as 30s";
      case BqlLexer.EQ:
        return "=";
      case BqlLexer.NEQ:
        return "!=";
      case BqlLexer.WS:
      case BqlLexer.UNRECOGNIZED:
        return "";
      default:
        String literal = vocabulary.getLiteralName(type);
        if (literal != null) {
          return literal.substring(1, literal.length() - 1).toUpperCase(Locale.ROOT);
        }
        String symbolic = vocabulary.getSymbolicName(type);
        return symbolic == null ? "" : symbolic.replace("_TYPE", "");
    }
  }

  private static final class SyntaxError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient BqlError error;

    SyntaxError(BqlError error) {
      super(error.message(), null, false, false);
      this.error = error;
    }
  }
}
