/*
 * BQL, the query language of Spyglass: a superset of Bullet's BQL.
 *
 * Precedence, from tightest to loosest: field access and type hints; unary minus and the prefix
 * NOT and SIZEOF (as in bullet-bql 1.3.2: NOT b AND c is (NOT b) AND c, SIZEOF l = 0 is
 * (SIZEOF l) = 0); IS [NOT] NULL; * / %; + -; < <= > >=; = !=; RLIKE; IN; BETWEEN; AND; XOR; OR.
 * Keywords are case-insensitive.
 */
grammar Bql;

options {
    caseInsensitive = true;
}

statement
    : query ';'? EOF
    ;

query
    : SELECT selectList
      FROM source
      lateralView*
      (WHERE where=expression)?
      (GROUP BY groupBy)?
      (HAVING having=expression)?
      (ORDER BY sortItem (',' sortItem)*)?
      (WINDOWING window)?
      (LIMIT limit=signedInteger)?
    ;

selectList
    : DISTINCT? selectItem (',' selectItem)*
    ;

selectItem
    : ASTERISK                                                           #selectAll
    | tableFunction                                                      #selectExplode
    | expression (AS? alias=identifier)?                                 #selectExpression
    ;

source
    : STREAM '(' (streamDuration ',' TIME)? ')'                          #streamSource
    | STREAM '(' FOREVER (',' TIME)? ')'                                 #foreverSource
    | '(' query ')'                                                      #subQuerySource
    ;

streamDuration
    : MAX
    | amount
    ;

lateralView
    : LATERAL VIEW tableFunction
    ;

tableFunction
    : OUTER? EXPLODE '(' expression ')' AS
      (alias=identifier | '(' keyAlias=identifier ',' valueAlias=identifier ')')
    ;

groupBy
    : '(' ')'
    | expressions
    ;

sortItem
    : expression ordering=(ASC | DESC)?
    ;

window
    : EVERY '(' emit=amount ',' emitUnit=unit ',' include ')'           #every
    | TUMBLING '(' size=amount ',' sizeUnit=unit ')'                    #tumbling
    | TUMBLING '(' size=amount ',' EVENT_TIME '(' time=expression ')'
      (',' LATENESS lateness=amount)? ')'                               #eventTimeTumbling
    | '(' EVERY ',' emit=amount ',' emitUnit=unit ',' include ')'       #every
    | '(' TUMBLING ',' size=amount ',' sizeUnit=unit ')'                #tumbling
    ;

include
    : ALL
    | FIRST ',' size=amount ',' sizeUnit=unit
    ;

unit
    : TIME
    | RECORD
    ;

amount
    : INTEGER_VALUE
    | LONG_VALUE
    | DURATION_VALUE
    ;

signedInteger
    : MINUS? (INTEGER_VALUE | LONG_VALUE)
    ;

expression
    : primary                                                                        #primaryExpression
    | base=expression '.' key=identifier                                             #dotAccess
    | base=expression '[' key=expression ']'                                         #indexAccess
    | expression ':' fieldType                                                       #typeHint
    | op=(MINUS | PLUS) operand=expression                                           #signed
    | op=(NOT | SIZEOF) operand=expression                                           #prefix
    | expression IS NOT? NULL                                                        #nullPredicate
    | left=expression op=(ASTERISK | SLASH | PERCENT) right=expression               #binary
    | left=expression op=(PLUS | MINUS) right=expression                             #binary
    | left=expression op=(LT | LTE | GT | GTE) quantifier=(ANY | ALL)? right=expression  #binary
    | left=expression op=(EQ | NEQ) quantifier=(ANY | ALL)? right=expression         #binary
    | left=expression NOT? op=RLIKE quantifier=ANY? right=expression                 #binary
    | left=expression NOT? IN '(' expressions ')'                                    #inList
    | left=expression NOT? IN right=expression                                       #inExpression
    | value=expression NOT? BETWEEN '(' lower=expression ',' upper=expression ')'    #between
    | left=expression op=AND right=expression                                        #binary
    | left=expression op=XOR right=expression                                        #binary
    | left=expression op=OR right=expression                                         #binary
    ;

expressions
    : expression (',' expression)*
    ;

primary
    : literal                                                                        #literalPrimary
    | '[' expressions? ']'                                                           #listPrimary
    | CAST '(' expression AS fieldType ')'                                           #cast
    | kind=(QUANTILE | FREQ | CUMFREQ) '(' expression ',' pointsSpec ')'             #distribution
    | op=(NOT | SIZEOF) '(' expression ')'                                           #prefixCall
    | BETWEEN '(' expressions? ')'                                                   #betweenCall
    | name=identifier '(' ASTERISK ')'                                               #starCall
    | name=identifier '(' DISTINCT expressions ')'                                   #distinctCall
    | name=identifier '(' expressions? ')'                                           #call
    | identifier                                                                     #field
    | '(' expression ')'                                                             #parentheses
    ;

pointsSpec
    : LINEAR ',' count=number                                                        #linearPoints
    | REGION ',' start=number ',' end=number ',' step=number                         #regionPoints
    | MANUAL ',' number (',' number)*                                                #manualPoints
    ;

literal
    : NULL
    | TRUE
    | FALSE
    | STRING
    | INTEGER_VALUE
    | LONG_VALUE
    | DOUBLE_VALUE
    | FLOAT_VALUE
    ;

number
    : sign=(MINUS | PLUS)? value=(INTEGER_VALUE | LONG_VALUE | DOUBLE_VALUE | FLOAT_VALUE)
    ;

fieldType
    : INTEGER_TYPE | LONG_TYPE | FLOAT_TYPE | DOUBLE_TYPE | BOOLEAN_TYPE | STRING_TYPE
    | outer=(LIST_TYPE | MAP_TYPE) ('[' fieldType ']')?
    ;

identifier
    : IDENTIFIER
    | QUOTED_IDENTIFIER
    | DIGIT_IDENTIFIER
    | nonReserved
    ;

nonReserved
    : ALL | ANY | ASC | DESC | FIRST | LIMIT | STREAM | TIME | RECORD | MAX | WINDOWING | EVERY
    | TUMBLING | MANUAL | REGION | LINEAR | QUANTILE | FREQ | CUMFREQ | LATERAL | VIEW | EXPLODE
    | FOREVER | EVENT_TIME | LATENESS
    | INTEGER_TYPE | LONG_TYPE | FLOAT_TYPE | DOUBLE_TYPE | BOOLEAN_TYPE | STRING_TYPE | LIST_TYPE
    | MAP_TYPE
    ;

ALL: 'ALL';
AND: 'AND';
ANY: 'ANY';
AS: 'AS';
ASC: 'ASC';
BETWEEN: 'BETWEEN';
BY: 'BY';
CAST: 'CAST';
CUMFREQ: 'CUMFREQ';
DESC: 'DESC';
DISTINCT: 'DISTINCT';
EVENT_TIME: 'EVENT_TIME';
EVERY: 'EVERY';
EXPLODE: 'EXPLODE';
FALSE: 'FALSE';
FIRST: 'FIRST';
FOREVER: 'FOREVER';
FREQ: 'FREQ';
FROM: 'FROM';
GROUP: 'GROUP';
HAVING: 'HAVING';
IN: 'IN';
IS: 'IS';
LATENESS: 'LATENESS';
LATERAL: 'LATERAL';
LIMIT: 'LIMIT';
LINEAR: 'LINEAR';
MANUAL: 'MANUAL';
MAX: 'MAX';
NOT: 'NOT';
NULL: 'NULL';
OR: 'OR';
ORDER: 'ORDER';
OUTER: 'OUTER';
QUANTILE: 'QUANTILE';
RECORD: 'RECORD';
REGION: 'REGION';
RLIKE: 'RLIKE';
SELECT: 'SELECT';
SIZEOF: 'SIZEOF';
STREAM: 'STREAM';
TIME: 'TIME';
TRUE: 'TRUE';
TUMBLING: 'TUMBLING';
VIEW: 'VIEW';
WHERE: 'WHERE';
WINDOWING: 'WINDOWING';
XOR: 'XOR';

INTEGER_TYPE: 'INTEGER';
LONG_TYPE: 'LONG';
FLOAT_TYPE: 'FLOAT';
DOUBLE_TYPE: 'DOUBLE';
BOOLEAN_TYPE: 'BOOLEAN';
STRING_TYPE: 'STRING';
LIST_TYPE: 'LIST';
MAP_TYPE: 'MAP';

EQ: '=' | '==';
NEQ: '<>' | '!=';
LT: '<';
LTE: '<=';
GT: '>';
GTE: '>=';

PLUS: '+';
MINUS: '-';
ASTERISK: '*';
SLASH: '/';
PERCENT: '%';

STRING
    : '\'' ( ~'\'' | '\'\'' )* '\''
    ;

INTEGER_VALUE
    : DIGIT+
    ;

LONG_VALUE
    : DIGIT+ 'L'
    ;

DURATION_VALUE
    : DIGIT+ ('MS' | 'S' | 'M' | 'H')
    ;

DOUBLE_VALUE
    : DIGIT+ '.' DIGIT*
    | DIGIT+ ('.' DIGIT*)? EXPONENT
    ;

FLOAT_VALUE
    : DOUBLE_VALUE 'F'
    ;

IDENTIFIER
    : (LETTER | '_') NAME_LETTER*
    ;

DIGIT_IDENTIFIER
    : DIGIT NAME_LETTER+
    ;

QUOTED_IDENTIFIER
    : '"' ( ~'"' | '""' )* '"'
    ;

fragment EXPONENT
    : 'E' [+-]? DIGIT+
    ;

fragment DIGIT
    : [0-9]
    ;

fragment LETTER
    : [A-Z]
    ;

fragment NAME_LETTER
    : LETTER | DIGIT | '_'
    ;

WS
    : [ \r\n\t]+ -> channel(HIDDEN)
    ;

// Anything else, so that the parser reports it with its position.
UNRECOGNIZED
    : .
    ;
