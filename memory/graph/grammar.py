"""The Cypher subset of query_memory_graph, as a lark LALR grammar.

Keywords are case-insensitive terminals with priority over names. Clauses the subset does not
have (WITH, CREATE, OPTIONAL MATCH, ...) are not in the grammar: the parser stops at them and
``memory.graph.parser`` turns that stop into a ``grammar`` rejection with a hint.
"""

from __future__ import annotations

from functools import cache

from lark import Lark

GRAMMAR = r"""
query: start_clause match_clause? where_clause? return_clause order_clause? limit_clause? ";"?

start_clause: START NAME "=" NAME "(" [start_arg ("," start_arg)*] ")"
start_arg: NAME ":" expr

match_clause: MATCH pattern ("," pattern)*
pattern: node_pattern (rel_pattern node_pattern)*
node_pattern: "(" [NAME] [":" NAME] [map_lit] ")"
rel_pattern: LARROW [rel_body] DASH         -> rel_left
           | DASH [rel_body] RARROW         -> rel_right
           | DASH [rel_body] DASH           -> rel_both
rel_body: "[" [NAME] [":" rel_types] [rel_range] [map_lit] "]"
rel_types: NAME ("|" ":"? NAME)*
rel_range: STAR [INT] [DOTDOT [INT]]

where_clause: WHERE expr
return_clause: RETURN [DISTINCT] return_item ("," return_item)*
return_item: expr [AS NAME]
order_clause: ORDER BY order_item ("," order_item)*
order_item: expr [direction]
direction: ASC | DESC
limit_clause: LIMIT (INT | PARAM)

?expr: or_expr
?or_expr: xor_expr (OR xor_expr)*
?xor_expr: and_expr (XOR and_expr)*
?and_expr: not_expr (AND not_expr)*
?not_expr: NOT not_expr                 -> not_op
         | predicate
?predicate: operand
          | operand COMP_OP operand               -> compare
          | operand CONTAINS operand              -> contains
          | operand STARTS WITH operand           -> starts_with
          | operand ENDS WITH operand             -> ends_with
          | operand IN operand                    -> in_list
          | operand IS NULL                       -> is_null
          | operand IS NOT NULL                   -> is_not_null
?operand: DASH operand                  -> negate
        | postfix
?postfix: atom
        | postfix "." NAME              -> prop
?atom: STRING                           -> string
     | NUMBER                           -> number
     | INT                              -> number
     | TRUE                             -> true
     | FALSE                            -> false
     | NULL                             -> null
     | PARAM                            -> param
     | NAME                             -> var
     | func_call
     | list_lit
     | map_lit
     | "(" expr ")"
func_call: NAME "(" [DISTINCT] [call_args] ")"
call_args: STAR | expr ("," expr)*
list_lit: "[" [expr ("," expr)*] "]"
map_lit: "{" [map_entry ("," map_entry)*] "}"
map_entry: NAME ":" expr

START.2: /start\b/i
MATCH.2: /match\b/i
WHERE.2: /where\b/i
RETURN.2: /return\b/i
DISTINCT.2: /distinct\b/i
AS.2: /as\b/i
ORDER.2: /order\b/i
BY.2: /by\b/i
ASC.2: /asc(ending)?\b/i
DESC.2: /desc(ending)?\b/i
LIMIT.2: /limit\b/i
OR.2: /or\b/i
XOR.2: /xor\b/i
AND.2: /and\b/i
NOT.2: /not\b/i
CONTAINS.2: /contains\b/i
STARTS.2: /starts\b/i
ENDS.2: /ends\b/i
WITH.2: /with\b/i
IN.2: /in\b/i
IS.2: /is\b/i
NULL.2: /null\b/i
TRUE.2: /true\b/i
FALSE.2: /false\b/i

COMP_OP: "<>" | "!=" | "<=" | ">=" | "=" | "<" | ">"
LARROW: "<-"
RARROW: "->"
DASH: "-"
STAR: "*"
DOTDOT: ".."
PARAM: /\$[A-Za-z_][A-Za-z0-9_]*/
NAME: /[A-Za-z_][A-Za-z0-9_]*/ | /`[^`]+`/
NUMBER: /\d+\.\d+([eE][+-]?\d+)?/ | /\d+[eE][+-]?\d+/
INT: /\d+/
STRING: /"(\\.|[^"\\])*"/ | /'(\\.|[^'\\])*'/
COMMENT: /\/\/[^\n]*/ | /\/\*(.|\n)*?\*\//

%import common.WS
%ignore WS
%ignore COMMENT
"""


@cache
def graph_parser() -> Lark:
    """One LALR parser per process (building it takes a few milliseconds)."""
    return Lark(GRAMMAR, start="query", parser="lalr", propagate_positions=True, maybe_placeholders=True)
