/* test_access.c: access facts on hand-written PTX for rules the nvcc corpus
 * reaches only in some builds: the kernel's own frame (as -G builds use it),
 * aliasing bases, partial loads, parameter addresses. */
#include <stdio.h>
#include <string.h>

#include "ptx_test_util.h"
#include "runner.h"

#define HDR ".version 9.0\n.target sm_75\n.address_size 64\n"

/* Facts of the only entry of text: classes (and exactness) of its places, in order. */
static void facts_of(const char *text, unsigned *cls, int *exact, size_t max, size_t *n, unsigned *flags) {
  ft_ptx_module_t *m = pt_parse_or_fail(text, strlen(text), "unit");
  ft_ptx_facts_t f;
  char err[256];
  ASSERT_EQ(ft_ptx_facts(m, &m->funcs[m->nfuncs - 1], &f, err, sizeof err), 0);
  ASSERT_LE(f.nplaces, max);
  for (size_t i = 0; i < f.nplaces; i++) cls[i] = f.places[i].access, exact[i] = f.places[i].exact;
  *n = f.nplaces;
  *flags = f.flags;
  ft_ptx_facts_free(&f);
  ft_ptx_module_free(m);
}

/* Two pointers copied to the local frame, read back through the frame base:
 * followed apart when the base is the same; mixed when another base may alias. */
TEST_IMPL(access_frame_slots) {
  static const char *const load_base[] = {"%SP", "%rd9"};
  for (int alias = 0; alias < 2; alias++) {
    char text[2048];
    snprintf(text, sizeof text, HDR
             ".visible .entry k(.param .u64 k_a, .param .u64 k_b)\n{\n"
             " .local .align 8 .b8 __local_depot0[16];\n .reg .b64 %%SP;\n .reg .b64 %%SPL;\n"
             " .reg .b64 %%rd<10>;\n .reg .f32 %%f<2>;\n"
             " mov.u64 %%SPL, __local_depot0;\n cvta.local.u64 %%SP, %%SPL;\n add.u64 %%rd9, %%SP, 0;\n"
             " ld.param.u64 %%rd1, [k_a];\n ld.param.u64 %%rd2, [k_b];\n"
             " st.u64 [%%SP+0], %%rd1;\n st.u64 [%%SP+8], %%rd2;\n"
             " ld.u64 %%rd3, [%s+0];\n ld.u64 %%rd4, [%%SP+8];\n"
             " ld.global.f32 %%f1, [%%rd4];\n st.global.f32 [%%rd3], %%f1;\n ret;\n}\n",
             load_base[alias]);
    unsigned cls[4], flags;
    int exact[4];
    size_t n;
    facts_of(text, cls, exact, 4, &n, &flags);
    ASSERT_EQ(n, 2u);
    if (!alias) {
      ASSERT_EQ(cls[0], (unsigned)FT_PTX_ACC_WRITE);
      ASSERT_EQ(cls[1], (unsigned)FT_PTX_ACC_READ);
      ASSERT(exact[0] && exact[1]);
    } else {
      /* %rd9 is another name of the frame: the load may read either pointer */
      ASSERT_EQ(cls[0], (unsigned)FT_PTX_ACC_ESCAPES);
      ASSERT_EQ(cls[1], (unsigned)FT_PTX_ACC_ESCAPES);
      ASSERT(!exact[0] && !exact[1]);
    }
    ASSERT_EQ(flags, 0u);
  }
  return TEST_OK;
}

/* A pointer rebuilt from two 4-byte loads of its slot: never silently missed. */
TEST_IMPL(access_partial_loads) {
  const char *text = HDR
      ".visible .entry k(.param .u64 k_a)\n{\n .reg .b32 %r<3>;\n .reg .b64 %rd<3>;\n"
      " ld.param.u32 %r1, [k_a];\n ld.param.u32 %r2, [k_a+4];\n mov.b64 %rd1, {%r1, %r2};\n"
      " st.global.u32 [%rd1], %r1;\n ret;\n}\n";
  unsigned cls[2], flags;
  int exact[2];
  size_t n;
  facts_of(text, cls, exact, 2, &n, &flags);
  ASSERT_EQ(n, 1u);
  ASSERT_EQ(cls[0], (unsigned)FT_PTX_ACC_ESCAPES);
  ASSERT(!exact[0]);
  return TEST_OK;
}

/* Loads through the address of the parameter itself (cvta.param): every place
 * of that parameter, conservatively; an address from no pointer is flagged. */
TEST_IMPL(access_param_address_and_unknown) {
  const char *text = HDR
      ".visible .entry k(.param .align 8 .b8 k_s[16], .param .u32 k_i)\n{\n .reg .b32 %r<4>;\n"
      " .reg .b64 %rd<8>;\n"
      " mov.u64 %rd1, k_s;\n cvta.param.u64 %rd2, %rd1;\n ld.param.u32 %r1, [k_i];\n"
      " mul.wide.u32 %rd3, %r1, 8;\n add.s64 %rd4, %rd2, %rd3;\n ld.u64 %rd5, [%rd4];\n"
      " ld.global.u32 %r2, [%rd5];\n"
      " mov.u32 %r3, %tid.x;\n cvt.u64.u32 %rd6, %r3;\n st.global.u32 [%rd6], %r2;\n ret;\n}\n";
  unsigned cls[2], flags;
  int exact[2];
  size_t n;
  facts_of(text, cls, exact, 2, &n, &flags);
  ASSERT_EQ(n, 2u);
  for (int i = 0; i < 2; i++) {
    ASSERT_EQ(cls[i], (unsigned)FT_PTX_ACC_READ);
    ASSERT(!exact[i]);
  }
  ASSERT(flags & FT_PTX_K_UNKNOWN_ADDR);   /* the store's address comes from %tid only */
  ASSERT(!(flags & FT_PTX_K_LOADED_PTR));    /* %rd5 came from the parameter, not from memory */
  return TEST_OK;
}
