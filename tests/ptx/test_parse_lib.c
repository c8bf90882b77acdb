/* test_parse_lib.c: the instruction forms and declarations CUDA libraries and
 * Thrust/CUB emit (matrices, textures, Hopper bulk copies, video, fp8, jump
 * tables, scoped labels): each parses, with every address as an ADDR operand
 * and every destination where the analysis looks for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_test_util.h"
#include "runner.h"

#define HDR ".version 8.5\n.target sm_90a\n.address_size 64\n"

static const ft_ptx_instr_t *nth_op(const ft_ptx_function_t *fn, unsigned op, unsigned nth) {
  for (size_t i = 0; i < fn->ninstrs; i++)
    if (fn->instrs[i].op == op && nth-- == 0) return &fn->instrs[i];
  FT_FAIL_("no %s #%u", ft_ptx_opcode_name(op), nth);
}

/* Operand i is a register named `name` (as declared, family member `num`). */
static int is_reg(const ft_ptx_function_t *fn, const ft_ptx_operand_t *o, const char *name, uint32_t num) {
  return o->kind == FT_PTX_OPD_REG && strcmp(fn->regs[o->index].name, name) == 0 && fn->regs[o->index].num == num;
}

/* Operand o is [reg + off] with reg %rd<num>. */
static int is_addr_rd(const ft_ptx_function_t *fn, const ft_ptx_operand_t *o, uint32_t num, int64_t off) {
  return o->kind == FT_PTX_OPD_ADDR && o->base_kind == FT_PTX_OPD_REG &&
         strcmp(fn->regs[o->index].name, "%rd") == 0 && fn->regs[o->index].num == num && o->value == off;
}

static ft_ptx_module_t *parse_body(const char *decls, const char *body) {
  size_t n = strlen(decls) + strlen(body) + 512;
  char *text = malloc(n);
  if (!text) FT_FAIL_("out of memory");
  snprintf(text, n,
           HDR "%s.visible .entry k(.param .u64 p)\n{\n.reg .pred %%p<4>;\n.reg .b16 %%h<4>;\n"
               ".reg .b32 %%r<16>;\n.reg .f32 %%f<16>;\n.reg .b64 %%rd<8>;\n.reg .f64 %%fd<8>;\n%s\nret;\n}\n",
           decls, body);
  ft_ptx_module_t *m = pt_parse_or_fail(text, strlen(text), "unit");
  free(text);
  return m;
}

TEST_IMPL(parse_matrix_instructions) {
  ft_ptx_module_t *m = parse_body("",
      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r0, %r1, %r2, %r3}, [%rd1+16];\n"
      "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%rd2], {%r4, %r5};\n"
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3},"
      " {%r4, %r5}, {%f4, %f5, %f6, %f7};\n"
      "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd0, %fd1}, {%fd2}, {%fd3}, {%fd4, %fd5};\n"
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32.satfinite {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%r6},"
      " {%r7, %r8, %r9, %r10};\n"
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1}, {%r2}, {%f4, %f5, %f6, %f7};\n"
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1}, {%r2}, {%f4, %f5, %f6, %f7};\n"
      "wmma.load.a.sync.aligned.col.m16n16k16.global.f16 {%r0, %r1, %r2, %r3}, [%rd3], %r9;\n"
      "wmma.store.d.sync.aligned.row.m16n16k16.shared.f32 [%rd4+8], {%f0, %f1}, 32;\n"
      "wmma.mma.sync.aligned.col.row.m16n16k16.s32.s8.s8.s32.satfinite {%r0}, {%r1}, {%r2}, {%r3};\n");
  const ft_ptx_function_t *k = ft_ptx_find_function(m, "k");
  const ft_ptx_instr_t *ld = nth_op(k, FT_PTX_OP_LDMATRIX, 0);
  ASSERT_EQ(ld->nops, 2u);
  ASSERT_EQ(ft_ptx_opd(k, ld, 0)->kind, FT_PTX_OPD_VEC);
  ASSERT_EQ(ft_ptx_opd(k, ld, 0)->count, 4u);
  ASSERT(is_reg(k, &k->operands[ft_ptx_opd(k, ld, 0)->index + 3], "%r", 3));
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, ld, 1), 1, 16));
  ASSERT_EQ(ld->space, FT_PTX_SP_SHARED);
  ASSERT_EQ(ld->vec, 4u);
  ASSERT(ld->flags & FT_PTX_F_TRANS);
  ASSERT_STR_EQ(ft_ptx_shape_name(ld->shape), "m8n8");
  ASSERT_EQ(ld->type, FT_PTX_T_B16);
  const ft_ptx_instr_t *st = nth_op(k, FT_PTX_OP_STMATRIX, 0);
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, st, 0), 2, 0));
  ASSERT_EQ(ft_ptx_opd(k, st, 1)->count, 2u);
  ASSERT_EQ(st->vec, 2u);
  ASSERT(!(st->flags & FT_PTX_F_TRANS));
  const ft_ptx_instr_t *mma = nth_op(k, FT_PTX_OP_MMA, 0);
  ASSERT_EQ(mma->nops, 4u);
  ASSERT_STR_EQ(ft_ptx_shape_name(mma->shape), "m16n8k16");
  ASSERT_EQ(mma->layout, FT_PTX_LAYOUT_B_COL);   /* row.col */
  ASSERT_EQ(mma->type, FT_PTX_T_F32);
  ASSERT_EQ(mma->type2, FT_PTX_T_BF16);
  ASSERT_EQ(mma->type3, FT_PTX_T_BF16);
  ASSERT_EQ(mma->type4, FT_PTX_T_F32);
  ASSERT(is_reg(k, &k->operands[ft_ptx_opd(k, mma, 0)->index], "%f", 0));
  const ft_ptx_instr_t *f64 = nth_op(k, FT_PTX_OP_MMA, 1);
  ASSERT_STR_EQ(ft_ptx_shape_name(f64->shape), "m8n8k4");
  ASSERT_EQ(f64->type4, FT_PTX_T_F64);
  ASSERT_EQ(ft_ptx_opd(k, f64, 0)->count, 2u);
  const ft_ptx_instr_t *s8 = nth_op(k, FT_PTX_OP_MMA, 2);
  ASSERT(s8->flags & FT_PTX_F_SATFINITE);
  ASSERT_EQ(s8->type2, FT_PTX_T_S8);
  ASSERT_EQ(nth_op(k, FT_PTX_OP_MMA, 3)->type3, FT_PTX_T_E5M2);
  ASSERT_EQ(nth_op(k, FT_PTX_OP_MMA, 4)->type2, FT_PTX_T_TF32);
  const ft_ptx_instr_t *wl = nth_op(k, FT_PTX_OP_WMMA_LOAD, 0);
  ASSERT_EQ(wl->mode, FT_PTX_FRAG_A);
  ASSERT_EQ(wl->layout, FT_PTX_LAYOUT_A_COL);
  ASSERT_EQ(wl->space, FT_PTX_SP_GLOBAL);
  ASSERT_EQ(wl->nops, 3u);
  ASSERT_EQ(ft_ptx_opd(k, wl, 0)->kind, FT_PTX_OPD_VEC);
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, wl, 1), 3, 0));
  ASSERT(is_reg(k, ft_ptx_opd(k, wl, 2), "%r", 9));
  const ft_ptx_instr_t *ws = nth_op(k, FT_PTX_OP_WMMA_STORE, 0);
  ASSERT_EQ(ws->mode, FT_PTX_FRAG_D);
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, ws, 0), 4, 8));
  ASSERT_EQ(ft_ptx_opd(k, ws, 2)->kind, FT_PTX_OPD_IMM_INT);
  const ft_ptx_instr_t *wm = nth_op(k, FT_PTX_OP_WMMA_MMA, 0);
  ASSERT_EQ(wm->layout, FT_PTX_LAYOUT_A_COL);   /* col.row */
  ASSERT(wm->flags & FT_PTX_F_SATFINITE);
  ASSERT_EQ(wm->type4, FT_PTX_T_S32);
  ft_ptx_module_free(m);
  return TEST_OK;
}

TEST_IMPL(parse_textures_and_surfaces) {
  ft_ptx_module_t *m = parse_body(
      ".global .texref tx;\n.global .surfref sf;\n"
      ".global .samplerref smp = { addr_mode_0 = clamp_to_edge, filter_mode = linear };\n",
      "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [tx, {%f4, %f5}];\n"
      "tex.1d.v4.s32.s32 {%r0, %r1, %r2, %r3}|%p1, [%rd1, smp, {%r4}];\n"
      "tex.level.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5}], %f6;\n"
      "tld4.g.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [tx, {%f4, %f5}];\n"
      "txq.width.b32 %r5, [tx];\n"
      "suld.b.2d.v2.b32.trap {%r0, %r1}, [sf, {%r2, %r3}];\n"
      "sust.b.1d.b32.clamp [%rd2, {%r2}], {%r6};\n"
      "sured.b.add.1d.u32.zero [sf, {%r2}], %r7;\n"
      "suq.height.b32 %r8, [sf];\n");
  ASSERT_EQ(m->nvars, 3u);
  ASSERT_EQ(m->vars[0].type, FT_PTX_T_TEXREF);
  ASSERT_EQ(m->vars[1].type, FT_PTX_T_SURFREF);
  ASSERT_EQ(m->vars[2].type, FT_PTX_T_SAMPLERREF);
  ASSERT(m->vars[2].init == NULL);
  const ft_ptx_function_t *k = ft_ptx_find_function(m, "k");
  /* [tx, {x, y}]: ADDR on the handle with count 1, then the coordinates */
  const ft_ptx_instr_t *t = nth_op(k, FT_PTX_OP_TEX, 0);
  ASSERT_EQ(t->nops, 4u);   /* d, (no predicate), [tx, ...], {x, y} */
  ASSERT_EQ(ft_ptx_opd(k, t, 0)->count, 4u);
  ASSERT_EQ(ft_ptx_opd(k, t, 1)->kind, FT_PTX_OPD_NONE);
  const ft_ptx_operand_t *a = ft_ptx_opd(k, t, 2);
  ASSERT_EQ(a->kind, FT_PTX_OPD_ADDR);
  ASSERT_EQ(a->base_kind, FT_PTX_OPD_SYM);
  ASSERT_EQ(a->sym_kind, FT_PTX_SYM_MODVAR);
  ASSERT_EQ(a->index, 0u);
  ASSERT_EQ(a->count, 1u);
  ASSERT_EQ(ft_ptx_opd(k, t, 3)->kind, FT_PTX_OPD_VEC);
  ASSERT_EQ(ft_ptx_opd(k, t, 3)->count, 2u);
  ASSERT_EQ(t->shape, FT_PTX_GEOM_2D);
  ASSERT_EQ(t->type, FT_PTX_T_F32);
  ASSERT_EQ(t->vec, 4u);
  /* |p and a sampler inside the brackets */
  const ft_ptx_instr_t *t1 = nth_op(k, FT_PTX_OP_TEX, 1);
  ASSERT(t1->flags & FT_PTX_F_PAIR_DST);
  ASSERT(is_reg(k, ft_ptx_opd(k, t1, 1), "%p", 1));
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, t1, 2), 1, 0));
  ASSERT_EQ(ft_ptx_opd(k, t1, 2)->count, 2u);
  ASSERT_EQ(ft_ptx_opd(k, t1, 3)->kind, FT_PTX_OPD_SYM);
  ASSERT_EQ(ft_ptx_opd(k, t1, 4)->count, 1u);
  const ft_ptx_instr_t *t2 = nth_op(k, FT_PTX_OP_TEX, 2);
  ASSERT_EQ(t2->layout, 1u);   /* .level: the level operand follows */
  ASSERT_EQ(t2->nops, 5u);
  ASSERT_EQ(nth_op(k, FT_PTX_OP_TLD4, 0)->mode, 2u);
  const ft_ptx_instr_t *q = nth_op(k, FT_PTX_OP_TXQ, 0);
  ASSERT_STR_EQ(ft_ptx_tex_query_name(q->mode), "width");
  ASSERT(is_reg(k, ft_ptx_opd(k, q, 0), "%r", 5));
  ASSERT_EQ(ft_ptx_opd(k, q, 1)->kind, FT_PTX_OPD_ADDR);
  ASSERT_EQ(ft_ptx_opd(k, q, 1)->count, 0u);
  const ft_ptx_instr_t *ld = nth_op(k, FT_PTX_OP_SULD, 0);
  ASSERT_EQ(ld->layout, 1u);   /* .trap */
  ASSERT_EQ(ft_ptx_opd(k, ld, 0)->kind, FT_PTX_OPD_VEC);
  ASSERT_EQ(ft_ptx_opd(k, ld, 1)->kind, FT_PTX_OPD_ADDR);
  ASSERT_EQ(ft_ptx_opd(k, ld, 1)->sym_kind, FT_PTX_SYM_MODVAR);
  ASSERT_EQ(ft_ptx_opd(k, ld, 1)->index, 1u);
  const ft_ptx_instr_t *st = nth_op(k, FT_PTX_OP_SUST, 0);
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, st, 0), 2, 0));
  ASSERT_EQ(st->layout, 2u);   /* .clamp */
  ASSERT_EQ(st->nops, 3u);     /* [s, {x}], {x} expanded, value */
  const ft_ptx_instr_t *sr = nth_op(k, FT_PTX_OP_SURED, 0);
  ASSERT_EQ(sr->mode, FT_PTX_ATOM_ADD);
  ASSERT_EQ(sr->layout, 3u);
  ASSERT_STR_EQ(ft_ptx_tex_query_name(nth_op(k, FT_PTX_OP_SUQ, 0)->mode), "height");
  ft_ptx_module_free(m);
  /* handles as kernel parameters: 8 bytes each */
  const char *text = HDR ".visible .entry e(.param .texref t, .param .u32 n, .param .samplerref s)\n{\nret;\n}\n";
  m = pt_parse_or_fail(text, strlen(text), "params");
  const ft_ptx_function_t *e = ft_ptx_find_function(m, "e");
  ASSERT_EQ(e->params[0].type, FT_PTX_T_TEXREF);
  ASSERT_EQ(e->params[0].size, 8u);
  ASSERT_EQ(e->params[2].offset, 16u);
  ft_ptx_module_free(m);
  return TEST_OK;
}

TEST_IMPL(parse_bulk_copies_and_barriers) {
  ft_ptx_module_t *m = parse_body(".extern .shared .align 16 .b8 smem[];\n",
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd1], [%rd2+64], %r0, [%rd3];\n"
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd1], [%rd4, {%r1, %r2}], [%rd3];\n"
      "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd2], [%rd1], 256, %rd5;\n"
      "cp.async.bulk.prefetch.L2.global [%rd2], 128;\n"
      "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd2], [%rd1], %r0;\n"
      "cp.async.bulk.commit_group;\n"
      "cp.async.bulk.wait_group.read 0;\n"
      "cp.async.mbarrier.arrive.noinc.shared.b64 [%rd3];\n"
      "mbarrier.init.shared::cta.b64 [smem], 32;\n"
      "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd6, [%rd3], 1024;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%rd3], %r3;\n"
      "fence.proxy.async.shared::cta;\n"
      "fence.proxy.tensormap::generic.acquire.gpu [%rd4], 128;\n"
      "fence.mbarrier_init.release.cluster;\n"
      "multimem.ld_reduce.relaxed.sys.global.add.f32 %f0, [%rd2];\n"
      "multimem.st.relaxed.sys.global.v4.f32 [%rd2], {%f0, %f1, %f2, %f3};\n"
      "multimem.red.relaxed.sys.global.add.u32 [%rd2], %r0;\n"
      "griddepcontrol.launch_dependents;\n"
      "griddepcontrol.wait;\n"
      "elect.sync %r4|%p2, -1;\n"
      "setmaxnreg.inc.sync.aligned.u32 240;\n");
  const ft_ptx_function_t *k = ft_ptx_find_function(m, "k");
  const ft_ptx_instr_t *b = nth_op(k, FT_PTX_OP_CP_ASYNC_BULK, 0);
  ASSERT_EQ(b->space, FT_PTX_SP_SHARED_CLUSTER);
  ASSERT_EQ(b->space2, FT_PTX_SP_GLOBAL);
  ASSERT_EQ(b->nops, 4u);
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, b, 0), 1, 0));
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, b, 1), 2, 64));
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, b, 3), 3, 0));
  const ft_ptx_instr_t *t = nth_op(k, FT_PTX_OP_CP_ASYNC_BULK_TENSOR, 0);
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, t, 1), 4, 0));
  ASSERT_EQ(ft_ptx_opd(k, t, 1)->count, 1u);   /* tensor map, then the coordinates */
  ASSERT_EQ(ft_ptx_opd(k, t, 2)->count, 2u);
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, t, 3), 3, 0));
  const ft_ptx_instr_t *s = nth_op(k, FT_PTX_OP_CP_ASYNC_BULK, 1);
  ASSERT_EQ(s->space, FT_PTX_SP_GLOBAL);
  ASSERT_EQ(s->space2, FT_PTX_SP_SHARED);
  ASSERT(s->flags & FT_PTX_F_L2_HINT);
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, nth_op(k, FT_PTX_OP_CP_ASYNC_BULK_PREFETCH, 0), 0), 2, 0));
  const ft_ptx_instr_t *r = nth_op(k, FT_PTX_OP_CP_REDUCE_ASYNC_BULK, 0);
  ASSERT_EQ(r->mode, FT_PTX_ATOM_ADD);
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, r, 0), 2, 0));
  ASSERT_EQ(nth_op(k, FT_PTX_OP_CP_ASYNC_BULK_WAIT, 0)->nops, 1u);
  ASSERT_EQ(nth_op(k, FT_PTX_OP_CP_ASYNC_BULK_COMMIT, 0)->nops, 0u);
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, nth_op(k, FT_PTX_OP_CP_ASYNC_MBARRIER_ARRIVE, 0), 0), 3, 0));
  const ft_ptx_instr_t *mi = nth_op(k, FT_PTX_OP_MBARRIER, 0);
  ASSERT_EQ(mi->mode, FT_PTX_MBAR_INIT);
  ASSERT_EQ(ft_ptx_opd(k, mi, 0)->kind, FT_PTX_OPD_ADDR);
  ASSERT_EQ(ft_ptx_opd(k, mi, 0)->base_kind, FT_PTX_OPD_SYM);
  const ft_ptx_instr_t *ma = nth_op(k, FT_PTX_OP_MBARRIER, 1);
  ASSERT_EQ(ma->mode, FT_PTX_MBAR_ARRIVE_EXPECT_TX);
  ASSERT_EQ(ma->sem, FT_PTX_SEM_RELEASE);
  ASSERT(is_reg(k, ft_ptx_opd(k, ma, 0), "%rd", 6));
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, ma, 1), 3, 0));
  const ft_ptx_instr_t *mw = nth_op(k, FT_PTX_OP_MBARRIER, 2);
  ASSERT_EQ(mw->mode, FT_PTX_MBAR_TRY_WAIT);
  ASSERT(mw->flags & FT_PTX_F_PARITY);
  ASSERT(is_reg(k, ft_ptx_opd(k, mw, 0), "%p", 1));
  const ft_ptx_instr_t *fp = nth_op(k, FT_PTX_OP_FENCE_PROXY, 0);
  ASSERT_EQ(fp->mode, FT_PTX_PROXY_ASYNC);
  ASSERT_EQ(fp->space, FT_PTX_SP_SHARED);
  const ft_ptx_instr_t *ft = nth_op(k, FT_PTX_OP_FENCE_PROXY, 1);
  ASSERT_EQ(ft->mode, FT_PTX_PROXY_TENSORMAP);
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, ft, 0), 4, 0));
  ASSERT_EQ(nth_op(k, FT_PTX_OP_FENCE_MBARRIER_INIT, 0)->scope, FT_PTX_SCOPE_CLUSTER);
  const ft_ptx_instr_t *ml = nth_op(k, FT_PTX_OP_MULTIMEM_LD_REDUCE, 0);
  ASSERT_EQ(ml->mode, FT_PTX_ATOM_ADD);
  ASSERT(is_reg(k, ft_ptx_opd(k, ml, 0), "%f", 0));
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, ml, 1), 2, 0));
  const ft_ptx_instr_t *ms = nth_op(k, FT_PTX_OP_MULTIMEM_ST, 0);
  ASSERT_EQ(ms->vec, 4u);
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, ms, 0), 2, 0));
  ASSERT_EQ(nth_op(k, FT_PTX_OP_MULTIMEM_RED, 0)->mode, FT_PTX_ATOM_ADD);
  ASSERT_EQ(nth_op(k, FT_PTX_OP_GRIDDEPCONTROL, 0)->mode, FT_PTX_GDC_LAUNCH_DEPENDENTS);
  ASSERT_EQ(nth_op(k, FT_PTX_OP_GRIDDEPCONTROL, 1)->mode, FT_PTX_GDC_WAIT);
  const ft_ptx_instr_t *el = nth_op(k, FT_PTX_OP_ELECT, 0);
  ASSERT(is_reg(k, ft_ptx_opd(k, el, 0), "%r", 4));
  ASSERT(is_reg(k, ft_ptx_opd(k, el, 1), "%p", 2));
  ASSERT_EQ(nth_op(k, FT_PTX_OP_SETMAXNREG, 0)->mode, 1u);
  ft_ptx_module_free(m);
  return TEST_OK;
}

TEST_IMPL(parse_int_video_and_conversions) {
  ft_ptx_module_t *m = parse_body("",
      "dp2a.lo.u32.u32 %r0, %r1, %r2, %r3;\n"
      "dp2a.hi.s32.s32 %r0, %r1, %r2, %r3;\n"
      "dp4a.s32.s32 %r0, %r1, %r2, %r3;\n"
      "vshr.u32.u32.u32.clamp.add %r0, %r1, %r2, %r3;\n"
      "vadd.s32.u32.s32.sat %r0, %r1.b2, %r2.h1;\n"
      "vset2.u32.u32.ne %r0, %r1, %r2;\n"
      "bmsk.clamp.b32 %r4, %r5, %r6;\n"
      "bmsk.wrap.b32 %r4, %r5, 7;\n"
      "szext.clamp.s32 %r4, %r5, %r6;\n"
      "fns.b32 %r4, %r5, %r6, -1;\n"
      "bfind.shiftamt.u32 %r4, %r5;\n"
      "brev.b64 %rd1, %rd2;\n"
      "prmt.b32 %r4, %r5, %r6, %r7;\n"
      "prmt.b32.f4e %r4, %r5, %r6, %r7;\n"
      "prmt.b32.b4e %r4, %r5, %r6, %r7;\n"
      "prmt.b32.rc8 %r4, %r5, %r6, %r7;\n"
      "prmt.b32.ecl %r4, %r5, %r6, %r7;\n"
      "prmt.b32.ecr %r4, %r5, %r6, %r7;\n"
      "prmt.b32.rc16 %r4, %r5, %r6, %r7;\n"
      "cvt.rn.satfinite.e4m3x2.f32 %h0, %f1, %f2;\n"
      "cvt.rn.f16x2.e5m2x2 %r1, %h0;\n"
      "cvt.rn.relu.satfinite.e5m2x2.f16x2 %h1, %r2;\n"
      "cvt.pack.sat.s8.s32.b32 %r8, %r9, %r10, %r11;\n"
      "ld.global.nc.v8.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd3+32];\n"
      "st.global.v8.f32 [%rd4], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};\n");
  const ft_ptx_function_t *k = ft_ptx_find_function(m, "k");
  ASSERT(nth_op(k, FT_PTX_OP_DP2A, 0)->flags & FT_PTX_F_LO);
  ASSERT(nth_op(k, FT_PTX_OP_DP2A, 1)->flags & FT_PTX_F_HI);
  ASSERT_EQ(nth_op(k, FT_PTX_OP_DP4A, 0)->type2, FT_PTX_T_S32);
  const ft_ptx_instr_t *v = nth_op(k, FT_PTX_OP_VSHR, 0);
  ASSERT_EQ(v->type3, FT_PTX_T_U32);
  ASSERT_EQ(v->mode, FT_PTX_ATOM_ADD);
  ASSERT(v->flags & FT_PTX_F_CLAMP);
  ASSERT_EQ(v->nops, 4u);
  ASSERT(is_reg(k, ft_ptx_opd(k, v, 0), "%r", 0));
  const ft_ptx_instr_t *va = nth_op(k, FT_PTX_OP_VADD, 0);
  ASSERT(is_reg(k, ft_ptx_opd(k, va, 1), "%r", 1));
  ASSERT_EQ(ft_ptx_opd(k, va, 1)->count, (uint32_t)FT_PTX_SEL_B2);
  ASSERT_EQ(ft_ptx_opd(k, va, 2)->count, (uint32_t)FT_PTX_SEL_H1);
  ASSERT(va->flags & FT_PTX_F_SAT);
  ASSERT_EQ(nth_op(k, FT_PTX_OP_VSET2, 0)->cmp, FT_PTX_CMP_NE);
  const ft_ptx_instr_t *bm = nth_op(k, FT_PTX_OP_BMSK, 0);
  ASSERT(bm->flags & FT_PTX_F_CLAMP);
  ASSERT(is_reg(k, ft_ptx_opd(k, bm, 0), "%r", 4));
  ASSERT(nth_op(k, FT_PTX_OP_BMSK, 1)->flags & FT_PTX_F_WRAP);
  ASSERT_EQ(ft_ptx_opd(k, nth_op(k, FT_PTX_OP_BMSK, 1), 2)->value, 7);
  ASSERT_EQ(nth_op(k, FT_PTX_OP_SZEXT, 0)->type, FT_PTX_T_S32);
  ASSERT_EQ(nth_op(k, FT_PTX_OP_FNS, 0)->nops, 4u);
  ASSERT(nth_op(k, FT_PTX_OP_BFIND, 0)->flags & FT_PTX_F_SHIFTAMT);
  ASSERT_EQ(nth_op(k, FT_PTX_OP_BREV, 0)->type, FT_PTX_T_B64);
  static const unsigned modes[] = {0, FT_PTX_PRMT_F4E, FT_PTX_PRMT_B4E, FT_PTX_PRMT_RC8, FT_PTX_PRMT_ECL,
                                   FT_PTX_PRMT_ECR, FT_PTX_PRMT_RC16};
  for (unsigned i = 0; i < 7; i++) ASSERT_EQ(nth_op(k, FT_PTX_OP_PRMT, i)->mode, modes[i]);
  const ft_ptx_instr_t *c = nth_op(k, FT_PTX_OP_CVT, 0);
  ASSERT(c->flags & FT_PTX_F_SATFINITE);
  ASSERT_EQ(c->type, FT_PTX_T_E4M3X2);
  ASSERT_EQ(c->type2, FT_PTX_T_F32);
  ASSERT_EQ(c->nops, 3u);
  ASSERT_EQ(nth_op(k, FT_PTX_OP_CVT, 1)->type2, FT_PTX_T_E5M2X2);
  ASSERT(nth_op(k, FT_PTX_OP_CVT, 2)->flags & FT_PTX_F_RELU);
  const ft_ptx_instr_t *pk = nth_op(k, FT_PTX_OP_CVT, 3);
  ASSERT(pk->flags & FT_PTX_F_PACK && pk->flags & FT_PTX_F_SAT);
  ASSERT_EQ(pk->type3, FT_PTX_T_B32);
  ASSERT_EQ(pk->nops, 4u);
  const ft_ptx_instr_t *ld = nth_op(k, FT_PTX_OP_LD, 0);
  ASSERT_EQ(ld->vec, 8u);
  ASSERT_EQ(ft_ptx_opd(k, ld, 0)->count, 8u);
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, ld, 1), 3, 32));
  const ft_ptx_instr_t *st = nth_op(k, FT_PTX_OP_ST, 0);
  ASSERT_EQ(st->vec, 8u);
  ASSERT(is_addr_rd(k, ft_ptx_opd(k, st, 0), 4, 0));
  ft_ptx_module_free(m);
  return TEST_OK;
}

TEST_IMPL(parse_declarations_and_scopes) {
  const char *text = HDR
      ".global .align 8 .u64 vt[4] = {0, 0, 0, 0};\n"
      ".global .align 8 .u64 vp[2] = {generic(vt)+16, generic(vt)};\n"
      ".func (.reg .b32 r) twice(.reg .b32 a)\n{\nadd.s32 r, a, a;\nret;\n}\n"
      ".func helper(.param .b32 x);\n"
      ".func real(.param .b32 x)\n{\nret;\n}\n"
      ".alias helper, real;\n"
      ".visible .entry k(.param .u64 p)\n{\n"
      ".reg .b32 %r<4>;\n.reg .v4 .f32 %v;\n.reg .pred %p;\n"
      "mov.u32 %r0, %reserved_smem_offset_begin;\n"
      "mov.u32 %r1, %reserved_smem_offset_1;\n"
      "mov.u32 %r2, %reserved_smem_offset_cap;\n"
      "mov.f32 %v.y, 0f3F800000;\n"
      "mov.f32 %v.a, %v.y;\n"
      "mov.v4.f32 %v, {%v.x, %v.y, %v.z, %v.w};\n"
      "{\n.reg.b32 f, C;\nmov.b32 f, 1;\n@%p bra $L;\nmov.b32 C, f;\n$L:\n}\n"
      "{\n.reg .b32 f;\n$L:\nmov.b32 f, 2;\n@%p bra $L;\n}\n"
      "$L0:\nadd.s32 %r3, %r3, 1;\n"
      "$L1:\nadd.s32 %r3, %r3, 2;\n"
      "$ts: .branchtargets $L1, $L0, $L1;\n"
      "brx.idx.uni %r3, $ts;\n"
      "{\n.param .b32 param0;\nst.param.b32 [param0], 1;\ncall.uni helper, (param0);\n}\n"
      "ret;\n}\n";
  ft_ptx_module_t *m = pt_parse_or_fail(text, strlen(text), "decls");
  /* {generic(vt)+16}: a relocation with addend 16 */
  ASSERT_EQ(m->vars[1].nrelocs, 2u);
  ASSERT_EQ(m->vars[1].relocs[0].addend, 16);
  ASSERT(m->vars[1].relocs[0].generic);
  ASSERT_EQ(m->vars[1].relocs[1].offset, 8u);
  ASSERT_EQ(m->vars[1].relocs[1].addend, 0);
  /* .reg parameters are registers of the body */
  const ft_ptx_function_t *tw = ft_ptx_find_function(m, "twice");
  ASSERT(tw->params[0].is_reg && tw->rets[0].is_reg);
  ASSERT_NE(tw->params[0].reg, FT_PTX_NO_REG);
  const ft_ptx_instr_t *add = &tw->instrs[0];
  ASSERT_EQ(ft_ptx_opd(tw, add, 0)->index, tw->rets[0].reg);
  ASSERT_EQ(ft_ptx_opd(tw, add, 1)->index, tw->params[0].reg);
  ASSERT_EQ(ft_ptx_opd(tw, add, 2)->index, tw->params[0].reg);
  const ft_ptx_function_t *k = ft_ptx_find_function(m, "k");
  /* special registers */
  ASSERT_EQ(ft_ptx_opd(k, &k->instrs[0], 1)->kind, FT_PTX_OPD_SREG);
  ASSERT_EQ(ft_ptx_opd(k, &k->instrs[0], 1)->index, (uint32_t)FT_PTX_SR_RESERVED_SMEM_BEGIN);
  ASSERT_EQ(ft_ptx_opd(k, &k->instrs[1], 1)->index, (uint32_t)FT_PTX_SR_RESERVED_SMEM_N);
  ASSERT_EQ(ft_ptx_opd(k, &k->instrs[1], 1)->count, 1u);
  ASSERT_EQ(ft_ptx_opd(k, &k->instrs[2], 1)->index, (uint32_t)FT_PTX_SR_RESERVED_SMEM_CAP);
  /* vector registers: components by name (.y = .g), the whole as a VEC */
  const ft_ptx_operand_t *vy = ft_ptx_opd(k, &k->instrs[3], 0);
  ASSERT_EQ(vy->kind, FT_PTX_OPD_REG);
  ASSERT_STR_EQ(k->regs[vy->index].name, "%v.y");
  ASSERT_EQ(k->regs[vy->index].type, FT_PTX_T_F32);
  const ft_ptx_operand_t *va = ft_ptx_opd(k, &k->instrs[4], 0);
  ASSERT_STR_EQ(k->regs[va->index].name, "%v.w");
  ASSERT_EQ(ft_ptx_opd(k, &k->instrs[4], 1)->index, vy->index);
  const ft_ptx_operand_t *vv = ft_ptx_opd(k, &k->instrs[5], 0);
  ASSERT_EQ(vv->kind, FT_PTX_OPD_VEC);
  ASSERT_EQ(vv->count, 4u);
  ASSERT_EQ(k->operands[vv->index + 1].index, vy->index);
  /* labels: each block's $L is its own; the first bra goes forward, the second back */
  const ft_ptx_instr_t *b0 = nth_op(k, FT_PTX_OP_BRA, 0);
  const ft_ptx_instr_t *b1 = nth_op(k, FT_PTX_OP_BRA, 1);
  size_t i0 = (size_t)(b0 - k->instrs), i1 = (size_t)(b1 - k->instrs);
  ASSERT_EQ(ft_ptx_opd(k, b0, 0)->index, i0 + 2);   /* past mov C, f */
  ASSERT_EQ(ft_ptx_opd(k, b1, 0)->index, i1 - 1);   /* its own block's mov f, 2 */
  /* `.reg.b32 f, C;` in one word: two registers */
  ASSERT_STR_EQ(k->regs[ft_ptx_opd(k, &k->instrs[i0 + 1], 0)->index].name, "C");
  /* brx.idx: the table's labels as a VEC of instruction indices */
  const ft_ptx_instr_t *bx = nth_op(k, FT_PTX_OP_BRX_IDX, 0);
  ASSERT(bx->flags & FT_PTX_F_UNI);
  const ft_ptx_operand_t *tl = ft_ptx_opd(k, bx, 1);
  ASSERT_EQ(tl->kind, FT_PTX_OPD_VEC);
  ASSERT_EQ(tl->count, 3u);
  size_t ib = (size_t)(bx - k->instrs);
  ASSERT_EQ(k->operands[tl->index].kind, FT_PTX_OPD_LABEL);
  ASSERT_EQ(k->operands[tl->index].index, ib - 1);       /* $L1 */
  ASSERT_EQ(k->operands[tl->index + 1].index, ib - 2);   /* $L0 */
  ASSERT_EQ(k->operands[tl->index + 2].index, ib - 1);
  /* .alias: a call to helper calls real */
  const ft_ptx_instr_t *call = nth_op(k, FT_PTX_OP_CALL, 0);
  ASSERT_STR_EQ(m->funcs[ft_ptx_opd(k, call, 1)->index].name, "real");
  ft_ptx_module_free(m);
  /* a branch into a nested block reaches a label unique in the function */
  const char *into = HDR ".visible .entry k()\n{\n.reg .pred %p;\n@%p bra $in;\n{\n$in:\nret;\n}\nret;\n}\n";
  m = pt_parse_or_fail(into, strlen(into), "into");
  k = ft_ptx_find_function(m, "k");
  ASSERT_EQ(ft_ptx_opd(k, &k->instrs[0], 0)->index, 1u);
  ft_ptx_module_free(m);
  /* what stays refused: a label declared twice in one block, a table used
   * before it is declared, a branch into one of two nested blocks naming the label */
  const char *bad[] = {
      HDR ".visible .entry k()\n{\n$L:\nret;\n$L:\nret;\n}\n",
      HDR ".visible .entry k()\n{\n.reg .b32 %r;\nbrx.idx %r, $t;\n$a:\nret;\n$t: .branchtargets $a;\n}\n",
      HDR ".visible .entry k()\n{\nbra $L;\n{\n$L:\nret;\n}\n{\n$L:\nret;\n}\n}\n",
  };
  static const char *const why[] = {"duplicate label", "branchtargets", "unknown name"};
  for (size_t i = 0; i < 3; i++) {
    char err[256];
    ASSERT_EQ(ft_ptx_parse(bad[i], strlen(bad[i]), &m, err, sizeof err), -1);
    if (!strstr(err, why[i])) FT_FAIL_("case %zu: '%s'", i, err);
  }
  return TEST_OK;
}

#ifdef FT_PTX_CORPUS_BIN
/* Thrust and CUB (issue 25): the PTX of tests/ptx/corpus_thrust.cu (sort,
 * inclusive scan, reduce, segmented reduce), for compute_75 and compute_90,
 * parses completely, holds each algorithm's kernels, and every kernel gets
 * access facts. */
TEST_IMPL(thrust_cub_ptx_parses) {
  static const char *const arch[] = {"75", "90"};
  static const char *const algo[] = {"DeviceRadixSort", "DeviceScan", "DeviceReduce", "DeviceSegmentedReduce"};
  for (unsigned a = 0; a < 2; a++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/thrust_cub.%s.ptx", FT_PTX_CORPUS_BIN, arch[a]);
    size_t len;
    char *text = pt_read_file(path, &len);
    if (!text) FT_FAIL_("cannot read %s", path);
    ft_ptx_module_t *m = pt_parse_or_fail(text, len, path);
    size_t kernels = 0, bmsk = 0, found[4] = {0};
    for (size_t i = 0; i < m->nfuncs; i++) {
      const ft_ptx_function_t *fn = &m->funcs[i];
      for (size_t j = 0; j < fn->ninstrs; j++) bmsk += fn->instrs[j].op == FT_PTX_OP_BMSK;
      if (!fn->is_entry || fn->is_decl) continue;
      kernels++;
      for (unsigned g = 0; g < 4; g++) found[g] += strstr(fn->name, algo[g]) != NULL;
      ft_ptx_facts_t f;
      char err[256];
      if (ft_ptx_facts(m, fn, &f, err, sizeof err) != 0) FT_FAIL_("%s: %s: %s", path, fn->name, err);
      ft_ptx_facts_free(&f);
    }
    printf("# compute_%s: %zu kernels, %zu bmsk\n", arch[a], kernels, bmsk);
    for (unsigned g = 0; g < 4; g++)
      if (!found[g]) FT_FAIL_("compute_%s: no %s kernel", arch[a], algo[g]);
    ASSERT_GT(bmsk, 0u);   /* CUB's radix sort: the instruction that failed before */
    ft_ptx_module_free(m);
    free(text);
  }
  return TEST_OK;
}
#else
TEST_IMPL(thrust_cub_ptx_parses) { return TEST_SKIPF("no nvcc at configure time: the Thrust program was not compiled"); }
#endif

#ifdef FT_PTX_CORPUS_BIN
/* nvcc's own spelling of the library forms (tests/ptx/corpus_lib_forms.cu,
 * compute_90a): each kernel parses, the forms are there with their address
 * operands, and every kernel gets facts. */
TEST_IMPL(nvcc_library_forms_parse) {
  char path[1024];
  snprintf(path, sizeof path, "%s/lib_forms.90a.ptx", FT_PTX_CORPUS_BIN);
  size_t len;
  char *text = pt_read_file(path, &len);
  if (!text) FT_FAIL_("cannot read %s", path);
  ft_ptx_module_t *m = pt_parse_or_fail(text, len, path);
  static const struct { unsigned op, addr; } want[] = {
    {FT_PTX_OP_TEX, 2}, {FT_PTX_OP_TLD4, 2}, {FT_PTX_OP_SULD, 1}, {FT_PTX_OP_SUST, 0},
    {FT_PTX_OP_WMMA_LOAD, 1}, {FT_PTX_OP_WMMA_STORE, 0}, {FT_PTX_OP_CP_ASYNC_BULK, 0},
    {FT_PTX_OP_MBARRIER, 0}, {FT_PTX_OP_WMMA_MMA, UINT32_MAX}, {FT_PTX_OP_GRIDDEPCONTROL, UINT32_MAX},
    {FT_PTX_OP_DP2A, UINT32_MAX}, {FT_PTX_OP_VABSDIFF4, UINT32_MAX},
  };
  for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
    size_t seen = 0;
    for (size_t f = 0; f < m->nfuncs; f++)
      for (size_t i = 0; i < m->funcs[f].ninstrs; i++) {
        const ft_ptx_instr_t *in = &m->funcs[f].instrs[i];
        if (in->op != want[w].op) continue;
        seen++;
        if (want[w].addr == UINT32_MAX) continue;
        /* mbarrier.init/expect_tx address the barrier first, arrive/try_wait second */
        unsigned a = in->op == FT_PTX_OP_MBARRIER && in->mode != FT_PTX_MBAR_INIT &&
                     in->mode != FT_PTX_MBAR_EXPECT_TX ? 1 : want[w].addr;
        if (in->nops <= a || ft_ptx_opd(&m->funcs[f], in, a)->kind != FT_PTX_OPD_ADDR)
          FT_FAIL_("%s (line %u): operand %u is not an address", ft_ptx_opcode_name(in->op), in->line, a);
      }
    if (!seen) FT_FAIL_("no %s in %s", ft_ptx_opcode_name(want[w].op), path);
  }
  size_t kernels = 0;
  for (size_t f = 0; f < m->nfuncs; f++) {
    if (!m->funcs[f].is_entry || m->funcs[f].is_decl) continue;
    kernels++;
    ft_ptx_facts_t facts;
    char err[256];
    if (ft_ptx_facts(m, &m->funcs[f], &facts, err, sizeof err) != 0) FT_FAIL_("%s: %s", m->funcs[f].name, err);
    ft_ptx_facts_free(&facts);
  }
  ASSERT_EQ(kernels, 4u);
  ft_ptx_module_free(m);
  free(text);
  return TEST_OK;
}
#else
TEST_IMPL(nvcc_library_forms_parse) { return TEST_SKIPF("no nvcc at configure time: the kernels were not compiled"); }
#endif
