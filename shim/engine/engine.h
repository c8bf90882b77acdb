/* engine.h: gpuft's protection engine (DESIGN.md sections 5, 6) as the hooks see it:
 * every floor (state -> mech -> store -> policy -> report, docs/design.md "Engine
 * floors"). Only shim/hooks includes it; an engine file includes its own floor's header. */
#ifndef FT_ENGINE_H
#define FT_ENGINE_H

#include "report.h"

#endif
