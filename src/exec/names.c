/* names.c: the names of the handlers, for the lowered-code dump
 * (ptxvm check --dump-lowered; src/lower/dump.c).
 *
 * Each handler files {a function returning it, its name} in the linker
 * section ptxvm_handlers where it is defined (exec.h HANDLER, HANDLER_NAME),
 * so no list of handlers is kept anywhere: the linker gathers the entries
 * of every object linked in and marks the range with __start_ and __stop_
 * symbols (GNU ld, gold, lld). A lookup walks the entries; it runs only
 * when a dump is asked for, never on the hot path. */
#include "exec.h"

extern const HandlerName __start_ptxvm_handlers[] __attribute__((visibility("hidden")));
extern const HandlerName __stop_ptxvm_handlers[] __attribute__((visibility("hidden")));

const char *exec_handler_name(ExecFn fn) {
  for (const HandlerName *h = __start_ptxvm_handlers; h < __stop_ptxvm_handlers; h++)
    if (h->get() == fn) return h->name;
  return NULL;
}
