/** The words of BQL, for highlighting, completion and the builder (see docs/bql.md). */

export const KEYWORDS = [
  'SELECT', 'DISTINCT', 'FROM', 'STREAM', 'TIME', 'RECORD', 'MAX', 'WHERE', 'AND', 'OR', 'XOR', 'NOT',
  'IS', 'NULL', 'TRUE', 'FALSE', 'IN', 'BETWEEN', 'RLIKE', 'ANY', 'ALL', 'AS', 'GROUP', 'BY',
  'HAVING', 'ORDER', 'ASC', 'DESC', 'LIMIT', 'WINDOWING', 'TUMBLING', 'EVERY', 'FIRST', 'LATERAL',
  'VIEW', 'OUTER', 'EXPLODE', 'LINEAR', 'REGION', 'MANUAL',
] as const;

export const TYPES = ['INTEGER', 'LONG', 'FLOAT', 'DOUBLE', 'BOOLEAN', 'STRING', 'LIST', 'MAP'] as const;

export interface FunctionInfo {
  name: string;
  signature: string;
  info: string;
  aggregate?: boolean;
}

export const FUNCTIONS: FunctionInfo[] = [
  { name: 'COUNT', signature: 'COUNT(*) | COUNT(DISTINCT x, ...)', info: 'records, or distinct tuples', aggregate: true },
  { name: 'SUM', signature: 'SUM(x)', info: 'sum of the numeric values', aggregate: true },
  { name: 'AVG', signature: 'AVG(x)', info: 'mean of the numeric values', aggregate: true },
  { name: 'MIN', signature: 'MIN(x)', info: 'smallest numeric value', aggregate: true },
  { name: 'MAX', signature: 'MAX(x)', info: 'largest numeric value', aggregate: true },
  { name: 'QUANTILE', signature: 'QUANTILE(x, LINEAR, n)', info: 'values at quantiles', aggregate: true },
  { name: 'FREQ', signature: 'FREQ(x, REGION, start, end, step)', info: 'histogram (PMF)', aggregate: true },
  { name: 'CUMFREQ', signature: 'CUMFREQ(x, MANUAL, p1, ...)', info: 'cumulative (CDF)', aggregate: true },
  { name: 'TOP', signature: 'TOP(k[, minCount], field, ...)', info: 'k most frequent tuples', aggregate: true },
  { name: 'ABS', signature: 'ABS(x)', info: 'absolute value' },
  { name: 'TRIM', signature: 'TRIM(s)', info: 'without surrounding whitespace' },
  { name: 'LOWER', signature: 'LOWER(s)', info: 'lower case' },
  { name: 'UPPER', signature: 'UPPER(s)', info: 'upper case' },
  { name: 'SUBSTRING', signature: 'SUBSTRING(s, start[, length])', info: 'substring from 1-based start' },
  { name: 'SUBSTR', signature: 'SUBSTR(s, start[, length])', info: 'substring from 1-based start' },
  { name: 'SIZEOF', signature: 'SIZEOF(x)', info: 'length of a string, list or map' },
  { name: 'SIZEIS', signature: 'SIZEIS(x, n)', info: 'SIZEOF(x) = n' },
  { name: 'CONTAINSKEY', signature: "CONTAINSKEY(m, 'k')", info: 'the map has the key' },
  { name: 'CONTAINSVALUE', signature: 'CONTAINSVALUE(c, v)', info: 'the map or list holds the value' },
  { name: 'FILTER', signature: 'FILTER(list, flags)', info: 'items whose flag is TRUE' },
  { name: 'IF', signature: 'IF(cond, then, else)', info: 'then when cond is TRUE, else else' },
  { name: 'BETWEEN', signature: 'BETWEEN(x, lo, hi)', info: 'lo <= x <= hi' },
  { name: 'HASH', signature: 'HASH(x)', info: '32-bit hash of any value' },
  { name: 'CAST', signature: 'CAST(x AS TYPE)', info: 'convert to a type' },
  { name: 'NOW', signature: 'NOW()', info: 'engine clock, epoch ms' },
  { name: 'UNIXTIMESTAMP', signature: 'UNIXTIMESTAMP([t[, pattern]])', info: 'epoch seconds' },
  { name: 'EXPLODE', signature: 'EXPLODE(list) AS x', info: 'one row per item' },
];
