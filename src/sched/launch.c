/* launch.c: checking a launch configuration and running the grid
 * (interp.h "the launcher"; PTX ISA 9.0 §11.4 performance-tuning
 * directives; the sm_90 limits of the CUDA programming guide).
 *
 * launch_check refuses what a GPU would refuse at launch time: zero or
 * oversized dimensions, more than 1024 threads per CTA, a grid that is not a
 * whole number of clusters, a cluster larger than the kernel allows, a CTA
 * shape that breaks .reqntid / .maxntid / .reqnctapercluster, shared memory
 * beyond 227 KiB. launch_run then runs the clusters one after another
 * (clusters in x, y, z order; the CTAs of a cluster run together, their
 * warps interleaved: cluster_run), and stops at the first that fails. Running clusters on a pool of host threads
 * (-j) is the grid scheduler's next step (DESIGN.md); the order here is one
 * valid interleaving of independent CTAs. */
#include <stdio.h>
#include <string.h>

#include "../exec/interp.h"

enum {
  MAX_BLOCK_THREADS = 1024,
  MAX_SHARED = 227 * 1024,       /* sm_90 opt-in maximum per CTA */
  MAX_CLUSTER_PORTABLE = 8,
  MAX_CLUSTER = 16,              /* non-portable, sm_90 */
};

static bool dims_ok(const char *what, const uint32_t d[3], const uint64_t max[3], char *err,
                    size_t errlen) {
  static const char xyz[] = "xyz";
  for (int i = 0; i < 3; i++) {
    if (d[i] == 0 || d[i] > max[i]) {
      snprintf(err, errlen, "%s dimension %c is %u; it must be between 1 and %llu", what, xyz[i],
               d[i], (unsigned long long)max[i]);
      return false;
    }
  }
  return true;
}

static uint64_t volume(const uint32_t d[3]) { return (uint64_t)d[0] * d[1] * d[2]; }

static bool directives_ok(const Function *k, const uint32_t block[3], const uint32_t cluster[3],
                          char *err, size_t errlen) {
  if (k->reqntid[0] && (block[0] != k->reqntid[0] || block[1] != (k->reqntid[1] ? k->reqntid[1] : 1) ||
                        block[2] != (k->reqntid[2] ? k->reqntid[2] : 1))) {
    snprintf(err, errlen, "block %u,%u,%u differs from the kernel's .reqntid %u,%u,%u", block[0],
             block[1], block[2], k->reqntid[0], k->reqntid[1] ? k->reqntid[1] : 1,
             k->reqntid[2] ? k->reqntid[2] : 1);
    return false;
  }
  if (k->maxntid[0]) {
    uint32_t m[3] = {k->maxntid[0], k->maxntid[1] ? k->maxntid[1] : 1,
                     k->maxntid[2] ? k->maxntid[2] : 1};
    if (volume(block) > volume(m)) {
      snprintf(err, errlen, "block %u,%u,%u has %llu threads, more than the kernel's .maxntid %u,%u,%u allows",
               block[0], block[1], block[2], (unsigned long long)volume(block), m[0], m[1], m[2]);
      return false;
    }
  }
  if (k->reqnctapercluster[0]) {
    uint32_t r[3] = {k->reqnctapercluster[0], k->reqnctapercluster[1] ? k->reqnctapercluster[1] : 1,
                     k->reqnctapercluster[2] ? k->reqnctapercluster[2] : 1};
    if (memcmp(r, cluster, sizeof r)) {
      snprintf(err, errlen, "cluster %u,%u,%u differs from the kernel's .reqnctapercluster %u,%u,%u",
               cluster[0], cluster[1], cluster[2], r[0], r[1], r[2]);
      return false;
    }
  }
  uint64_t maxc = k->maxclusterrank > MAX_CLUSTER_PORTABLE ? MAX_CLUSTER : MAX_CLUSTER_PORTABLE;
  if (k->maxclusterrank && k->maxclusterrank < maxc) maxc = k->maxclusterrank;
  if (volume(cluster) > maxc) {
    snprintf(err, errlen, "cluster %u,%u,%u has %llu CTAs; at most %llu are allowed", cluster[0],
             cluster[1], cluster[2], (unsigned long long)volume(cluster), (unsigned long long)maxc);
    return false;
  }
  return true;
}

bool launch_check(const Function *kernel, const uint32_t grid[3], const uint32_t block[3],
                  const uint32_t cluster[3], uint32_t shared_bytes, char *err, size_t errlen) {
  static const uint64_t gmax[3] = {0x7fffffff, 65535, 65535};
  static const uint64_t bmax[3] = {1024, 1024, 64};
  static const uint64_t cmax[3] = {MAX_CLUSTER, MAX_CLUSTER, MAX_CLUSTER};
  static const char xyz[] = "xyz";
  if (!dims_ok("grid", grid, gmax, err, errlen) || !dims_ok("block", block, bmax, err, errlen) ||
      !dims_ok("cluster", cluster, cmax, err, errlen))
    return false;
  if (volume(block) > MAX_BLOCK_THREADS) {
    snprintf(err, errlen, "block %u,%u,%u has %llu threads; at most %d are allowed", block[0],
             block[1], block[2], (unsigned long long)volume(block), MAX_BLOCK_THREADS);
    return false;
  }
  for (int i = 0; i < 3; i++)
    if (grid[i] % cluster[i]) {
      snprintf(err, errlen, "grid dimension %c (%u) is not a multiple of the cluster's (%u)",
               xyz[i], grid[i], cluster[i]);
      return false;
    }
  if (shared_bytes > MAX_SHARED) {
    snprintf(err, errlen, "%u bytes of shared memory per CTA exceed the %d available",
             shared_bytes, MAX_SHARED);
    return false;
  }
  return directives_ok(kernel, block, cluster, err, errlen);
}

bool launch_run(Launch *l) {
  const uint32_t *g = l->grid, *c = l->cluster;
  uint32_t n[3];
  for (int i = 0; i < 3; i++) n[i] = g[i] / (c[i] ? c[i] : 1);
  for (uint32_t z = 0; z < n[2]; z++)
    for (uint32_t y = 0; y < n[1]; y++)
      for (uint32_t x = 0; x < n[0]; x++) {
        const uint32_t id[3] = {x, y, z};
        if (!cluster_run(l, id)) return false;
        if (l->error) return false;
      }
  return true;
}
