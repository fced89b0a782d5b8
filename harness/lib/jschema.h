/*
 * jschema.h - a small JSON Schema (draft 2020-12) validator for the keywords
 * gauntlet's published schemas use (docs/report.schema.json,
 * docs/manifest.schema.json), so that a binary can check what it wrote
 * without Python.
 *
 * Keywords checked:
 *   type (a name or an array of names; "integer" is a number with no
 *   fraction), enum, const, properties, required, additionalProperties
 *   (boolean or schema), propertyNames, dependentRequired, items (one
 *   schema), minimum, maximum, exclusiveMinimum, exclusiveMaximum,
 *   minLength, maxLength (in code points), pattern (POSIX regcomp with
 *   REG_EXTENDED, searched anywhere in the string as JSON Schema does),
 *   $ref (a fragment of this document: "#", "#/$defs/NAME",
 *   "#/definitions/NAME" or any other JSON pointer into it; siblings of
 *   $ref apply too), $defs and definitions (the schemas $ref points to),
 *   if/then/else, allOf, anyOf, oneOf, not; true and false as schemas.
 * Keywords ignored (annotations, no effect on validity):
 *   $schema (at the top only, and only the draft 2020-12 URI), $id (at the
 *   top only), $comment, title, description, default, examples,
 *   deprecated, readOnly, writeOnly.
 * Any other keyword (format, patternProperties, prefixItems, minItems,
 * uniqueItems, $anchor, ...) makes the whole schema refused, so that a
 * schema cannot outgrow the validator without anyone noticing. The whole
 * schema is checked before the document, unreachable $defs included:
 * keyword value types, every $ref target, every pattern compiled.
 *
 * Differences from a full implementation: patterns are POSIX ERE, not
 * ECMA-262 ("." also matches a newline; a backslash before a letter or
 * digit, as in \d, is refused in the schema; "$" matches at the very end
 * only, as in ECMA-262, where python3-jsonschema, using Python's re, also
 * takes "lost\n" for "^lost$"); numbers are doubles (cJSON), so integers
 * beyond 2^53 compare as their nearest double.
 *
 * Bounded: validation nests at most GL_JSCHEMA_MAX_DEPTH calls (document
 * levels plus schema hops such as $ref, allOf, if/then at one level), so a
 * deep document fails validation ("nested deeper than 64 levels") instead
 * of exhausting the stack, and a $ref loop that never descends into the
 * document is refused as a schema error.
 */
#ifndef GL_JSCHEMA_H
#define GL_JSCHEMA_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define GL_JSCHEMA_MAX_DEPTH 64
#define GL_JSCHEMA_MAX_ERRORS 100

/* 0 when doc is valid against schema; otherwise -1, err filled with the
 * first error found as "PATH: MESSAGE" (PATH a JSON pointer into doc such
 * as /faults/3/state, "/" for the document itself) and *n_errors (n_errors
 * may be NULL) the number of errors found, counting stopped (and the
 * document no longer walked) at GL_JSCHEMA_MAX_ERRORS. A schema the
 * validator cannot handle: -2, err naming the place in the schema and the
 * keyword ("#/$defs/x: unsupported keyword \"format\""), *n_errors 0.
 * err may be NULL when err_n is 0. */
int gl_jschema_validate(const cJSON *schema, const cJSON *doc, char *err, size_t err_n, int *n_errors);

#endif
