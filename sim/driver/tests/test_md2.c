/* test_md2.c: MD2 and HMAC-MD2 (md2.c, the static runtime's integrity check)
 * against the test vectors of RFC 1319 and a property of HMAC. */
#include <string.h>

#include "md2.h"
#include "simtest.h"

static void hex(const uint8_t d[16], char out[33]) {
  for (int i = 0; i < 16; i++) {
    static const char x[] = "0123456789abcdef";
    out[2 * i] = x[d[i] >> 4];
    out[2 * i + 1] = x[d[i] & 15];
  }
  out[32] = 0;
}

TEST_IMPL(md2_rfc1319_vectors) {
  static const char *const v[][2] = {
      {"", "8350e5a3e24c153df2275c9f80692773"},
      {"a", "32ec01ec4a6dac72c0ab96fb34c0b5d1"},
      {"abc", "da853b0d3f88d99b30283a69e6ded6bb"},
      {"message digest", "ab4f496bfb2a530b219ff33031fe06b0"},
      {"abcdefghijklmnopqrstuvwxyz", "4e8ddff3650292ab5a4108c3aa47940b"},
      {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "da33def2a42df13975352846c30338cd"},
      {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
       "d5976f79d83d3a0dc9806c3c66f3efd8"},
  };
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    uint8_t d[16];
    char h[33];
    sim_md2_t m;
    sim_md2_init(&m);
    /* fed in two pieces: the streaming state must not depend on the split */
    size_t n = strlen(v[i][0]), half = n / 2;
    sim_md2_update(&m, v[i][0], half);
    sim_md2_update(&m, v[i][0] + half, n - half);
    sim_md2_final(&m, d);
    hex(d, h);
    if (strcmp(h, v[i][1]) != 0) FT_FAIL_("MD2(\"%s\") = %s, expected %s", v[i][0], h, v[i][1]);
  }
  return TEST_OK;
}

/* HMAC-MD2 with a 16-byte key is MD2(key^0x5c || MD2(key^0x36 || msg)). */
TEST_IMPL(md2_hmac_definition) {
  uint8_t key[16], k[32], inner[16], want[16], got[16];
  const char msg[] = "the static runtime checks its driver";
  for (int i = 0; i < 16; i++) key[i] = (uint8_t)(i * 37 + 5);
  sim_md2_t m;
  for (int i = 0; i < 16; i++) k[i] = key[i] ^ 0x36;
  sim_md2_init(&m);
  sim_md2_update(&m, k, 16);
  sim_md2_update(&m, msg, sizeof msg - 1);
  sim_md2_final(&m, inner);
  for (int i = 0; i < 16; i++) k[i] = key[i] ^ 0x5c;
  memcpy(k + 16, inner, 16);
  sim_md2_init(&m);
  sim_md2_update(&m, k, 32);
  sim_md2_final(&m, want);
  sim_hmac_md2(key, msg, sizeof msg - 1, got);
  ASSERT(memcmp(want, got, 16) == 0);
  key[3] ^= 1; /* another key, another answer */
  sim_hmac_md2(key, msg, sizeof msg - 1, got);
  ASSERT(memcmp(want, got, 16) != 0);
  return TEST_OK;
}
