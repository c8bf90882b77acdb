/* lex.c: splits PTX text into words, numbers, strings and punctuation, counting
 * lines. Never reads past the given length (texts come from untrusted images). */
#include "lex.h"

void ft_lex_init(ft_lexer_t *lx, const char *text, size_t len) {
  lx->p = text;
  lx->end = text + len;
  lx->line = 1;
}

static int is_word_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
         c == '%' || c == '.';
}
static int is_word_char(char c) {
  return is_word_start(c) || (c >= '0' && c <= '9');
}

/* Skips spaces and comments; returns 0 on an unterminated block comment. */
static int skip_space(ft_lexer_t *lx) {
  while (lx->p < lx->end) {
    char c = *lx->p;
    if (c == '\n') {
      lx->line++;
      lx->p++;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      lx->p++;
    } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
      while (lx->p < lx->end && *lx->p != '\n') lx->p++;
    } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
      lx->p += 2;
      for (;;) {
        if (lx->p + 1 >= lx->end) {
          lx->p = lx->end;
          return 0;
        }
        if (lx->p[0] == '*' && lx->p[1] == '/') {
          lx->p += 2;
          break;
        }
        if (*lx->p == '\n') lx->line++;
        lx->p++;
      }
    } else {
      break;
    }
  }
  return 1;
}

ft_tok_t ft_lex_next(ft_lexer_t *lx) {
  ft_tok_t t = {FT_TOK_EOF, lx->p, 0, lx->line};
  if (!skip_space(lx)) {
    t.kind = FT_TOK_ERR;
    t.len = 0;
    return t;
  }
  t.s = lx->p;
  t.line = lx->line;
  if (lx->p >= lx->end) return t;
  const char *b = lx->p;
  char c = *b;
  if (is_word_start(c)) {
    const char *q = b + 1;
    for (;;) {
      if (q < lx->end && is_word_char(*q)) {
        q++;
      } else if (q + 1 < lx->end && q[0] == ':' && q[1] == ':') {
        q += 2;   /* .shared::cta, .L2::cache_hint */
      } else {
        break;
      }
    }
    t.kind = FT_TOK_WORD;
    t.len = (size_t)(q - b);
  } else if (c >= '0' && c <= '9') {
    const char *q = b + 1;
    int hexlike = q < lx->end && (*q == 'x' || *q == 'X' || *q == 'f' || *q == 'F' ||
                                  *q == 'd' || *q == 'D' || *q == 'b' || *q == 'B');
    while (q < lx->end) {
      char d = *q;
      if ((d >= '0' && d <= '9') || (d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') || d == '.') {
        q++;
      } else if ((d == '+' || d == '-') && !hexlike && (q[-1] == 'e' || q[-1] == 'E')) {
        q++;   /* 1.5e+10 */
      } else {
        break;
      }
    }
    t.kind = FT_TOK_NUM;
    t.len = (size_t)(q - b);
  } else if (c == '"') {
    const char *q = b + 1;
    while (q < lx->end && *q != '"' && *q != '\n') {
      if (*q == '\\' && q + 1 < lx->end && q[1] != '\n') q++;
      q++;
    }
    if (q >= lx->end || *q != '"') {
      t.kind = FT_TOK_ERR;
      t.len = 1;
      return t;
    }
    t.kind = FT_TOK_STR;
    t.len = (size_t)(q + 1 - b);
  } else if (c == ',' || c == ';' || c == ':' || c == '[' || c == ']' || c == '{' || c == '}' ||
             c == '(' || c == ')' || c == '+' || c == '-' || c == '!' || c == '@' || c == '|' ||
             c == '<' || c == '>' || c == '=' || c == '*') {
    t.kind = FT_TOK_PUNCT;
    t.len = 1;
  } else {
    t.kind = FT_TOK_ERR;
    t.len = 1;
    return t;
  }
  lx->p = b + t.len;
  return t;
}
