/* md2.h: MD2 (RFC 1319) and HMAC-MD2 with a 16-byte key, for the static CUDA
 * runtime's check of its driver (export.c). */
#ifndef SIM_MD2_H
#define SIM_MD2_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint8_t x[48], c[16], buf[16], last;
  unsigned count;
} sim_md2_t;

void sim_md2_init(sim_md2_t *m);
void sim_md2_update(sim_md2_t *m, const void *data, size_t n);
void sim_md2_final(sim_md2_t *m, uint8_t out[16]);
void sim_hmac_md2(const uint8_t key[16], const void *msg, size_t n, uint8_t out[16]);
#endif
