/* Test runner API (libuv style): tests are declared once in a list file of
 * TEST_ENTRY(name, timeout_s) lines; the runner forks each with a timeout. */
#ifndef FT_TEST_RUNNER_H
#define FT_TEST_RUNNER_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TEST_OK = 0, TEST_SKIP = 77 };

#define TEST_IMPL(name) int ft_test_##name(void)

/* Report a skip with its reason; use as `return TEST_SKIPF("no nvcc")`. */
int ft_test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define TEST_SKIPF(...) ft_test_skip(__VA_ARGS__)

/* Path of the test binary's directory, for locating built helpers. */
const char *ft_test_dir(void);

/* How much slower than a plain build this one runs (FT_TEST_TIMEOUT_SCALE, or the
 * scale configured; 1 for a plain build): timeouts grow by it, and loops may run
 * fewer rounds above 1. */
double ft_test_timeout_scale(void);

void ft_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

#define FT_FAIL_(...) ft_test_fail(__FILE__, __LINE__, __VA_ARGS__)

#define ASSERT(expr)                                                          \
  do {                                                                        \
    if (!(expr)) FT_FAIL_("assertion failed: %s", #expr);                     \
  } while (0)

/* Comparisons that print both sides. Integers are widened to intmax/uintmax by
 * signedness of the left operand. */
#define FT_IS_SIGNED_(x) _Generic((x), signed char: 1, short: 1, int: 1, long: 1, \
                                  long long: 1, default: 0)
#define ASSERT_CMP_(a, op, b)                                                   \
  do {                                                                          \
    __typeof__(a) a_ = (a);                                                     \
    __typeof__(b) b_ = (b);                                                     \
    if (!(a_ op b_)) {                                                          \
      if (FT_IS_SIGNED_(a_))                                                    \
        FT_FAIL_("%s %s %s: %jd vs %jd", #a, #op, #b, (intmax_t)a_, (intmax_t)b_); \
      else                                                                      \
        FT_FAIL_("%s %s %s: %ju (0x%jx) vs %ju (0x%jx)", #a, #op, #b,           \
                 (uintmax_t)a_, (uintmax_t)a_, (uintmax_t)b_, (uintmax_t)b_);   \
    }                                                                           \
  } while (0)
#define ASSERT_EQ(a, b) ASSERT_CMP_(a, ==, b)
#define ASSERT_NE(a, b) ASSERT_CMP_(a, !=, b)
#define ASSERT_LT(a, b) ASSERT_CMP_(a, <, b)
#define ASSERT_LE(a, b) ASSERT_CMP_(a, <=, b)
#define ASSERT_GT(a, b) ASSERT_CMP_(a, >, b)
#define ASSERT_GE(a, b) ASSERT_CMP_(a, >=, b)
#define ASSERT_STR_EQ(a, b)                                                   \
  do {                                                                        \
    const char *a_ = (a), *b_ = (b);                                          \
    if (!a_ || !b_ || strcmp(a_, b_) != 0)                                    \
      FT_FAIL_("%s == %s: \"%s\" vs \"%s\"", #a, #b, a_ ? a_ : "(null)",      \
               b_ ? b_ : "(null)");                                           \
  } while (0)
#define ASSERT_MEM_EQ(a, b, n)                                                \
  do {                                                                        \
    const unsigned char *a_ = (const unsigned char *)(a);                     \
    const unsigned char *b_ = (const unsigned char *)(b);                     \
    size_t n_ = (n);                                                          \
    for (size_t i_ = 0; i_ < n_; i_++)                                        \
      if (a_[i_] != b_[i_])                                                   \
        FT_FAIL_("%s and %s differ at byte %zu of %zu: 0x%02x vs 0x%02x", #a, \
                 #b, i_, n_, a_[i_], b_[i_]);                                 \
  } while (0)

#endif
