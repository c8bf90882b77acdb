/* lex.h: tokens of PTX text for the parser (ptx/parse.c). A word is an identifier,
 * directive or dotted opcode ("ld.global.nc.v4.u32", ".shared::cta"). */
#ifndef FT_PTX_LEX_H
#define FT_PTX_LEX_H

#include <stddef.h>
#include <stdint.h>

typedef enum { FT_TOK_EOF = 0, FT_TOK_WORD, FT_TOK_NUM, FT_TOK_STR, FT_TOK_PUNCT, FT_TOK_ERR } ft_tok_kind_t;

typedef struct {
  ft_tok_kind_t kind;
  const char *s;   /* points into the text */
  size_t len;
  uint32_t line;
} ft_tok_t;

typedef struct {
  const char *p, *end;
  uint32_t line;
} ft_lexer_t;

void ft_lex_init(ft_lexer_t *lx, const char *text, size_t len);
/* Next token; comments and white space skipped. FT_TOK_ERR for a character
 * PTX does not use or an unterminated comment/string (len 1 at the spot). */
ft_tok_t ft_lex_next(ft_lexer_t *lx);

static inline int ft_tok_is(const ft_tok_t *t, const char *s) {
  size_t i = 0;
  for (; i < t->len; i++)
    if (s[i] != t->s[i]) return 0;
  return s[i] == '\0';
}
static inline int ft_tok_punct(const ft_tok_t *t, char c) {
  return t->kind == FT_TOK_PUNCT && t->s[0] == c;
}

#endif
