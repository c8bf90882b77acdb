/* report_json.c: reading gpuft's reports with jansson (report_json.h). */
#include "report_json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static json_t *check(json_t *root, const char *what, char *err, size_t cap) {
  if (!json_is_object(root) || !json_is_string(json_object_get(root, "gpuft_version"))) {
    snprintf(err, cap, "%s: not a gpuft report", what);
    json_decref(root);
    return NULL;
  }
  /* schema absent: the first, unversioned format, read the same way */
  json_t *schema = json_object_get(root, "schema");
  if (json_is_integer(schema) && json_integer_value(schema) > FT_REPORT_SCHEMA_KNOWN)
    fprintf(stderr, "gpuft: %s: report schema %lld is newer than this tool's (%d): fields it "
                    "does not know are ignored\n", what, (long long)json_integer_value(schema),
            FT_REPORT_SCHEMA_KNOWN);
  return root;
}

json_t *ft_report_parse(const char *text, char *err, size_t cap) {
  json_error_t je;
  json_t *root = text ? json_loads(text, 0, &je) : NULL;
  if (!root) {
    snprintf(err, cap, "not JSON (%s, line %d)", text ? je.text : "no text", text ? je.line : 0);
    return NULL;
  }
  return check(root, "report", err, cap);
}

json_t *ft_report_load(const char *path, char *err, size_t cap) {
  FILE *f = fopen(path, "r");
  if (!f) { /* the system's words, not the parser's */
    snprintf(err, cap, "%s: cannot read it: %s", path, strerror(errno));
    return NULL;
  }
  json_error_t je;
  json_t *root = json_loadf(f, 0, &je);
  fclose(f);
  if (!root) {
    snprintf(err, cap, "%s: not a gpuft report (not JSON: gpuft writes its report with "
                       "--report=FILE or GPUFT_REPORT=FILE)", path);
    return NULL;
  }
  return check(root, path, err, cap);
}

json_t *ft_jget(json_t *root, const char *path) {
  char key[128];
  json_t *v = root;
  while (v && *path) {
    size_t n = strcspn(path, ".");
    if (n >= sizeof key) return NULL;
    memcpy(key, path, n);
    key[n] = 0;
    v = json_is_object(v) ? json_object_get(v, key) : NULL;
    path += n + (path[n] == '.');
  }
  return v;
}

double ft_jnum(json_t *root, const char *path) {
  json_t *v = ft_jget(root, path);
  return json_is_number(v) ? json_number_value(v) : 0;
}

uint64_t ft_ju64(json_t *root, const char *path) {
  json_t *v = ft_jget(root, path);
  if (json_is_integer(v)) return json_integer_value(v) < 0 ? 0 : (uint64_t)json_integer_value(v);
  return json_is_real(v) && json_real_value(v) > 0 ? (uint64_t)json_real_value(v) : 0;
}

const char *ft_jstr(json_t *root, const char *path, const char *def) {
  json_t *v = ft_jget(root, path);
  return json_is_string(v) ? json_string_value(v) : def;
}

const char *ft_report_context_lost(json_t *root) {
  return json_is_object(ft_jget(root, "context_lost")) ? ft_jstr(root, "context_lost.name", "a sticky CUDA error")
                                                       : NULL;
}
