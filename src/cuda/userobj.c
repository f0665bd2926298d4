/* userobj.c: user objects (CUDA driver API, "Graph Management":
 * cuUserObjectCreate, cuUserObjectRetain, cuUserObjectRelease,
 * cuGraphRetainUserObject, cuGraphReleaseUserObject), what cuda.core ties
 * the lifetime of a graph's Python objects to.
 *
 * A user object is a reference count and a destructor. References are
 * owned by the caller (cuUserObjectCreate's initial ones, cuUserObjectRetain)
 * or by graphs: a graph keeps a set of (object, count) (DrvUserRefs,
 * driver.h) that cuGraphRetainUserObject adds to (new references, or with
 * CU_GRAPH_USER_OBJECT_MOVE the caller's moved) and cuGraphReleaseUserObject
 * takes from; graph.c copies the set, retaining each reference again, into
 * a clone of the graph, an executable graph instantiated from it and a
 * child graph node made of it, and releases a set when its owner goes.
 *
 * When the last reference goes, the object leaves the handle table at once
 * and its destructor runs later, outside every lock of the driver (CUDA
 * runs it on an internal thread, at no documented time): the dead objects
 * wait in a list that drv_user_objects_reap empties, called at the end of
 * each entry point that can release a reference. The destructor runs as a
 * host function does, so a CUDA call inside it is refused
 * (CUDA_ERROR_NOT_PERMITTED), as documented. */
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "driver.h"

enum { MAGIC_USEROBJ = 0x55534f21 };

struct CUuserObject_st {
  uint32_t magic;
  atomic_long refs;
  void *ptr;
  CUhostFn destroy;
  struct CUuserObject_st *next_dead;
};

typedef struct DrvUserRef { CUuserObject obj; unsigned long count; } DrvUserRef;

static pthread_mutex_t dead_lock = PTHREAD_MUTEX_INITIALIZER;
static CUuserObject dead;   /* objects whose destructors are due */

static bool live_object(CUuserObject o) { return drv_live(o, MAGIC_USEROBJ); }

static bool count_ok(unsigned count) { return count > 0 && count <= INT_MAX; }

static void retain(CUuserObject o, unsigned long count) { atomic_fetch_add(&o->refs, (long)count); }

/* Drops count references; the last one queues the destructor. */
static void release(CUuserObject o, unsigned long count) {
  if (atomic_fetch_sub(&o->refs, (long)count) != (long)count) return;
  drv_handle_remove(o);
  pthread_mutex_lock(&dead_lock);
  o->next_dead = dead;
  dead = o;
  pthread_mutex_unlock(&dead_lock);
}

void drv_user_objects_reap(void) {
  pthread_mutex_lock(&dead_lock);
  CUuserObject list = dead;
  dead = NULL;
  pthread_mutex_unlock(&dead_lock);
  while (list) {
    CUuserObject o = list;
    list = o->next_dead;
    drv_run_host_fn(o->destroy, o->ptr);
    free(o);
  }
}

CUresult cuUserObjectCreate(CUuserObject *object_out, void *ptr, CUhostFn destroy, unsigned int initialRefcount,
                            unsigned int flags) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!object_out || !destroy || !count_ok(initialRefcount) || flags != CU_USER_OBJECT_NO_DESTRUCTOR_SYNC)
    return CUDA_ERROR_INVALID_VALUE;
  CUuserObject o = calloc(1, sizeof *o);
  if (!o) return CUDA_ERROR_OUT_OF_MEMORY;
  o->magic = MAGIC_USEROBJ;
  atomic_init(&o->refs, (long)initialRefcount);
  o->ptr = ptr;
  o->destroy = destroy;
  if (!drv_handle_add(o)) {
    free(o);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *object_out = o;
  return CUDA_SUCCESS;
}

CUresult cuUserObjectRetain(CUuserObject object, unsigned int count) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!live_object(object) || !count_ok(count)) return CUDA_ERROR_INVALID_VALUE;
  retain(object, count);
  return CUDA_SUCCESS;
}

CUresult cuUserObjectRelease(CUuserObject object, unsigned int count) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!live_object(object) || !count_ok(count)) return CUDA_ERROR_INVALID_VALUE;
  release(object, count);
  drv_user_objects_reap();
  return CUDA_SUCCESS;
}

/* ---- the sets graphs own (driver.h) ---- */

CUresult drv_refs_add(DrvUserRefs *set, CUuserObject obj, unsigned count, bool move) {
  if (!live_object(obj) || !count_ok(count)) return CUDA_ERROR_INVALID_VALUE;
  size_t i = 0;
  while (i < set->n && set->v[i].obj != obj) i++;
  if (i == set->n) {
    DrvUserRef *v = realloc(set->v, (set->n + 1) * sizeof *v);
    if (!v) return CUDA_ERROR_OUT_OF_MEMORY;
    set->v = v;
    set->v[set->n++] = (DrvUserRef){obj, 0};
  }
  set->v[i].count += count;
  if (!move) retain(obj, count);
  return CUDA_SUCCESS;
}

CUresult drv_refs_remove(DrvUserRefs *set, CUuserObject obj, unsigned count) {
  if (!count_ok(count)) return CUDA_ERROR_INVALID_VALUE;
  size_t i = 0;
  while (i < set->n && set->v[i].obj != obj) i++;
  if (i == set->n || set->v[i].count < count) return CUDA_ERROR_INVALID_VALUE;   /* not the set's to release */
  set->v[i].count -= count;
  if (!set->v[i].count) set->v[i] = set->v[--set->n];
  release(obj, count);
  return CUDA_SUCCESS;
}

CUresult drv_refs_copy(DrvUserRefs *dst, const DrvUserRefs *src) {
  dst->v = NULL;
  dst->n = 0;
  if (!src->n) return CUDA_SUCCESS;
  if (!(dst->v = malloc(src->n * sizeof *dst->v))) return CUDA_ERROR_OUT_OF_MEMORY;
  for (size_t i = 0; i < src->n; i++) {
    dst->v[i] = src->v[i];
    retain(src->v[i].obj, src->v[i].count);
  }
  dst->n = src->n;
  return CUDA_SUCCESS;
}

void drv_refs_clear(DrvUserRefs *set) {
  for (size_t i = 0; i < set->n; i++) release(set->v[i].obj, set->v[i].count);
  free(set->v);
  set->v = NULL;
  set->n = 0;
}
