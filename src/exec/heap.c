/* heap.c: malloc and free, CUDA's device heap system calls (the CUDA C++
 * Programming Guide, "Dynamic Global Memory Allocation and Operations";
 * PTX declares them `.extern .func (.param .b64 r) malloc (.param .b64 n)`
 * and `.extern .func free (.param .b64 p)`). The heap is the device's
 * (src/mem/heap.c), opened by the launch of any kernel that can reach these
 * calls (api/launch.c, program_uses_heap), so its blocks outlive the launch
 * as CUDA requires, until freed. Each lane calls in lane order.
 *
 * malloc returns NULL when the heap has no room, as CUDA documents (never
 * a host allocation). free(NULL) does nothing (documented). Freeing the
 * same pointer twice, or a pointer malloc did not return, is undefined in
 * CUDA ("Repeated calls to free() with the same ptr has undefined
 * behavior"; ptr must have been returned by malloc): ptxvm makes each a
 * located fault, never a quiet corruption of the heap.
 * The heap orders what it hands over, as a GPU's allocator does with its
 * atomics: for the race checker (--check) each malloc and free is a
 * release and an acquire of its thread (race_fence), so the owner of a
 * reused block does not race with the block's previous owner. */
#include "program.h"
#include "race.h"

XStatus exec_malloc(Warp *w, const XInsn *x, uint32_t mask) {
  const CallInfo *ci = x->aux;
  Device *d = w->launch->dev;
  if (!dev_heap_get(d, NULL, NULL))
    return exec_fault(w, x, __builtin_ctz(mask), "malloc: the launch has no device heap");
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    race_fence(w, 1u << l);
    uint64_t p = dev_heap_malloc(d, call_opd_u64(w, &ci->args[0], l));
    if (ci->nrets == 1) call_opd_put(w, &ci->rets[0], l, p);
  }
  return XS_NEXT;
}
HANDLER_NAME(exec_malloc);

XStatus exec_free(Warp *w, const XInsn *x, uint32_t mask) {
  const CallInfo *ci = x->aux;
  Device *d = w->launch->dev;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t p = call_opd_u64(w, &ci->args[0], l);
    if (p == 0) continue;
    race_fence(w, 1u << l);
    uint64_t base = 0, size = 0;
    dev_heap_get(d, &base, &size);
    switch (dev_heap_free(d, p, NULL)) {
    case HEAP_OK: break;
    case HEAP_DOUBLE:
      return exec_fault(w, x, l, "free(0x%llx): double free, the block was freed already",
                        (unsigned long long)p);
    case HEAP_NOT_BLOCK:
      return exec_fault(w, x, l, "free(0x%llx): no block of the device heap starts there (not a pointer "
                        "malloc returned)", (unsigned long long)p);
    default:
      return exec_fault(w, x, l, "free(0x%llx): not a pointer device malloc returned (outside the device "
                        "heap [0x%llx, 0x%llx))", (unsigned long long)p, (unsigned long long)base,
                        (unsigned long long)(base + size));
    }
  }
  return XS_NEXT;
}
HANDLER_NAME(exec_free);
