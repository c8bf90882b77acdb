/* report_json.h: gpuft's JSON reports as the tools read them (jansson): load one,
 * check its schema, read numbers by dotted path. docs/report.md is the schema. */
#ifndef FT_REPORT_JSON_H
#define FT_REPORT_JSON_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The newest schema these tools know; newer reports are read with a warning. */
#define FT_REPORT_SCHEMA_KNOWN 1

/* Parses text (or the file at path) as a gpuft report: NULL with why in err if it
 * is not JSON or not a gpuft report. */
json_t *ft_report_parse(const char *text, char *err, size_t cap);
json_t *ft_report_load(const char *path, char *err, size_t cap);

/* The member at a dotted path ("errors.detected"), or NULL. */
json_t *ft_jget(json_t *root, const char *path);
/* That member as a number (integer or real); 0 if absent or not a number. */
double ft_jnum(json_t *root, const char *path);
uint64_t ft_ju64(json_t *root, const char *path);
/* That member as a string; def if absent or not a string. */
const char *ft_jstr(json_t *root, const char *path, const char *def);
/* The sticky error a report says the GPU context was lost to (`context_lost.name`),
 * or NULL (none, or root NULL): what a restart (gpuft --restarts, campaign --restarts)
 * is for. */
const char *ft_report_context_lost(json_t *root);

#endif
