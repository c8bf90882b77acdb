/* options_text.c: flag names and value kinds of the options table (options_text.h). */
#include "options_text.h"

void ft_flag_name(const char *name, char *out, size_t cap) {
  size_t i = 0;
  for (; name[i] && i + 1 < cap; i++)
    out[i] = name[i] == '_' ? '-' : (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
  out[i] = 0;
}

const char *ft_kind_meta(const ft_option_t *o) {
  switch (o->kind) {
    case FT_OPTK_BOOL: return "BOOL";
    case FT_OPTK_INT: return "N";
    case FT_OPTK_SIZE: return "SIZE";
    case FT_OPTK_ENUM: return o->choices;
    default: return "TEXT";
  }
}
