/* test_parse.c: the IR the parser builds for the forms the interpreter and the
 * analysis depend on, and its "not analysed" errors with line numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_test_util.h"
#include "runner.h"

#define HDR ".version 9.0\n.target sm_75\n.address_size 64\n"

static ft_ptx_module_t *parse(const char *text) { return pt_parse_or_fail(text, strlen(text), "unit"); }

static const ft_ptx_instr_t *find_op(const ft_ptx_function_t *fn, unsigned op, unsigned nth) {
  for (size_t i = 0; i < fn->ninstrs; i++)
    if (fn->instrs[i].op == op && nth-- == 0) return &fn->instrs[i];
  FT_FAIL_("no %s #%u", ft_ptx_opcode_name(op), nth);
}

TEST_IMPL(parse_sample_module) {
  ft_ptx_module_t *m = parse(pt_sample_ptx);
  ASSERT_EQ(m->version_major, 9u);
  ASSERT_EQ(m->version_minor, 0u);
  ASSERT_EQ(m->sm, 75u);
  ASSERT_EQ(m->address_size, 64u);
  ASSERT_EQ(m->nvars, 3u);
  ASSERT_EQ(m->vars[0].size, 16u);
  ASSERT_EQ(m->vars[0].align, 4u);
  const uint8_t want[16] = {1, 0, 0, 0, 2};
  ASSERT_MEM_EQ(m->vars[0].init, want, 16);
  ASSERT_EQ(m->vars[1].nrelocs, 1u);
  ASSERT_EQ(m->vars[1].relocs[0].index, 0u);
  ASSERT(m->vars[1].relocs[0].generic);
  ASSERT(m->vars[2].unsized);
  ASSERT_EQ(m->vars[2].space, FT_PTX_SP_SHARED);
  const ft_ptx_function_t *k = ft_ptx_find_function(m, "k");
  ASSERT(k && k->is_entry && k->linkage == FT_PTX_LINK_VISIBLE);
  ASSERT_EQ(k->nparams, 3u);
  ASSERT_EQ(k->params[0].size, 24u);
  ASSERT_EQ(k->params[0].align, 8u);
  ASSERT_EQ(k->params[1].offset, 24u);
  ASSERT_EQ(k->params[2].offset, 32u);
  ASSERT_EQ(k->param_bytes, 40u);
  ASSERT_EQ(k->maxntid[0], 256u);
  ASSERT_EQ(k->maxntid[1], 1u);
  const ft_ptx_function_t *sq = ft_ptx_find_function(m, "sq");
  ASSERT(sq && !sq->is_entry && sq->nrets == 1 && sq->nparams == 2);
  /* bra to a label resolved to the index of the instruction after it */
  const ft_ptx_instr_t *bra = find_op(k, FT_PTX_OP_BRA, 0);
  ASSERT(bra->guard != FT_PTX_NO_REG && !bra->guard_neg);
  const ft_ptx_operand_t *lab = ft_ptx_opd(k, bra, 0);
  ASSERT_EQ(lab->kind, FT_PTX_OPD_LABEL);
  ASSERT_EQ(k->instrs[lab->index].op, FT_PTX_OP_RET);
  /* call: [returns], target, [arguments], prototype */
  const ft_ptx_instr_t *call = find_op(k, FT_PTX_OP_CALL, 0);
  ASSERT_EQ(call->nops, 4u);
  ASSERT(call->flags & FT_PTX_F_UNI);
  ASSERT_EQ(ft_ptx_opd(k, call, 0)->count, 1u);
  ASSERT_EQ(ft_ptx_opd(k, call, 1)->sym_kind, FT_PTX_SYM_FUNC);
  ASSERT_STR_EQ(m->funcs[ft_ptx_opd(k, call, 1)->index].name, "sq");
  const ft_ptx_operand_t *args = ft_ptx_opd(k, call, 2);
  ASSERT_EQ(args->count, 2u);
  const ft_ptx_operand_t *a1 = &k->operands[args->index + 1];
  ASSERT_EQ(a1->kind, FT_PTX_OPD_SYM);
  ASSERT_EQ(a1->sym_kind, FT_PTX_SYM_FUNCVAR);
  ASSERT_STR_EQ(k->vars[a1->index].name, "param1");
  ASSERT_EQ(k->vars[a1->index].space, FT_PTX_SP_PARAM);
  ASSERT_EQ(ft_ptx_opd(k, call, 3)->kind, FT_PTX_OPD_NONE);
  /* shfl d|p: two destination slots, then a, b, c, membermask */
  const ft_ptx_instr_t *sh = find_op(k, FT_PTX_OP_SHFL, 0);
  ASSERT_EQ(sh->nops, 6u);
  ASSERT_EQ(sh->mode, FT_PTX_SHFL_DOWN);
  ASSERT(sh->flags & FT_PTX_F_SYNC && sh->flags & FT_PTX_F_PAIR_DST);
  ASSERT_EQ(k->regs[ft_ptx_opd(k, sh, 1)->index].type, FT_PTX_T_PRED);
  /* ld.global.nc, atom immediate float, special registers */
  const ft_ptx_instr_t *ld = find_op(k, FT_PTX_OP_LD, 5);
  ASSERT_EQ(ld->space, FT_PTX_SP_GLOBAL);
  ASSERT(ld->flags & FT_PTX_F_NC);
  const ft_ptx_instr_t *at = find_op(k, FT_PTX_OP_ATOM, 0);
  ASSERT_EQ(at->mode, FT_PTX_ATOM_ADD);
  ASSERT_EQ(at->type, FT_PTX_T_F32);
  ASSERT_EQ(ft_ptx_opd(k, at, 2)->kind, FT_PTX_OPD_IMM_F32);
  ASSERT_EQ(ft_ptx_opd(k, at, 2)->value, 0x3F800000);
  const ft_ptx_instr_t *mv = find_op(k, FT_PTX_OP_MOV, 0);
  ASSERT_EQ(ft_ptx_opd(k, mv, 1)->kind, FT_PTX_OPD_SREG);
  ASSERT_EQ(ft_ptx_opd(k, mv, 1)->index, (uint32_t)FT_PTX_SR_CTAID);
  ASSERT_EQ(ft_ptx_opd(k, mv, 1)->count, 0u);
  ft_ptx_module_free(m);
  return TEST_OK;
}

TEST_IMPL(parse_nested_scopes_and_operands) {
  const char *text = HDR
      ".visible .entry e(.param .u64 e_p)\n{\n"
      " .reg .b32 %r<4>;\n .reg .pred %p<3>;\n .reg .b64 %rd<4>;\n .reg .f32 %f<5>;\n .reg .f64 %fd<2>;\n"
      " { .reg .b32 t; mov.b32 t, 1; add.s32 %r1, t, 2; }\n"
      " { .reg .b32 t; .reg .pred %p1; mov.b32 t, 0x10; setp.lt.and.s32 %p1|%p2, t, -1, !%p0; }\n"
      " ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+-16];\n"
      " st.global.v2.f32 [%rd2+8], {%f1, _};\n"
      " mov.f64 %fd1, 0d3FF8000000000000;\n mov.f64 %fd0, 1.5;\n"
      " mov.b64 %rd3, {%r1, %r2};\n"
      " cvt.rn.f32.s32 %f1, %r3;\n cvt.rzi.s32.f32 %r3, %f1;\n"
      " mul.wide.u32 %rd1, %r1, 4;\n mad.lo.s32 %r2, %r1, %r2, %r3;\n"
      " add.cc.u32 %r1, %r1, %r2;\n addc.u32 %r2, %r2, 0;\n"
      " @!%p1 bra.uni $L_end;\n"
      " shf.l.wrap.b32 %r1, %r2, %r3, 5;\n vote.sync.ballot.b32 %r1, %p1, -1;\n"
      " bar.red.popc.u32 %r2, 0, %p1;\n"
      " mov.u32 %r3, %envreg2;\n cvt.rn.f16x2.f32 %r1, %f2, %f1;\n max.s32 %r1, %r2, %r3;\n"
      "$L_end:\n ret;\n}\n";
  ft_ptx_module_t *m = parse(text);
  const ft_ptx_function_t *e = &m->funcs[0];
  /* the two `t` are distinct registers, and distinct from every %r */
  const ft_ptx_instr_t *m1 = find_op(e, FT_PTX_OP_MOV, 0), *m2 = find_op(e, FT_PTX_OP_MOV, 1);
  uint32_t t1 = ft_ptx_opd(e, m1, 0)->index, t2 = ft_ptx_opd(e, m2, 0)->index;
  ASSERT_NE(t1, t2);
  ASSERT_STR_EQ(e->regs[t1].name, "t");
  ASSERT_GE(t1, 4u + 3 + 4 + 5 + 2);
  ASSERT_EQ(ft_ptx_opd(e, m2, 1)->value, 16);
  /* setp p|q with a negated third predicate; the inner %p1 shadows the outer */
  const ft_ptx_instr_t *sp = find_op(e, FT_PTX_OP_SETP, 0);
  ASSERT_EQ(sp->nops, 5u);
  ASSERT_EQ(sp->cmp, FT_PTX_CMP_LT);
  ASSERT_EQ(sp->boolop, FT_PTX_BOOL_AND);
  ASSERT_EQ(sp->type, FT_PTX_T_S32);
  ASSERT_EQ(ft_ptx_opd(e, sp, 3)->value, -1);
  ASSERT(ft_ptx_opd(e, sp, 4)->neg);
  ASSERT_NE(ft_ptx_opd(e, sp, 0)->index, 4u + 1);   /* not the outer %p1 */
  ASSERT_EQ(ft_ptx_opd(e, sp, 1)->index, 4u + 2);   /* the outer %p2 */
  /* vectors and addresses */
  const ft_ptx_instr_t *ld = find_op(e, FT_PTX_OP_LD, 0);
  ASSERT_EQ(ld->vec, 4u);
  const ft_ptx_operand_t *v = ft_ptx_opd(e, ld, 0), *ad = ft_ptx_opd(e, ld, 1);
  ASSERT_EQ(v->kind, FT_PTX_OPD_VEC);
  ASSERT_EQ(v->count, 4u);
  for (unsigned i = 0; i < 4; i++) ASSERT_EQ(e->operands[v->index + i].kind, FT_PTX_OPD_REG);
  ASSERT_EQ(ad->kind, FT_PTX_OPD_ADDR);
  ASSERT_EQ(ad->base_kind, FT_PTX_OPD_REG);
  ASSERT_EQ(ad->value, -16);
  const ft_ptx_instr_t *st = find_op(e, FT_PTX_OP_ST, 0);
  ASSERT_EQ(e->operands[ft_ptx_opd(e, st, 1)->index + 1].kind, FT_PTX_OPD_SINK);
  /* float immediates: hex and decimal */
  ASSERT_EQ(ft_ptx_opd(e, find_op(e, FT_PTX_OP_MOV, 2), 1)->kind, FT_PTX_OPD_IMM_F64);
  ASSERT_EQ((uint64_t)ft_ptx_opd(e, find_op(e, FT_PTX_OP_MOV, 2), 1)->value, 0x3FF8000000000000ull);
  ASSERT_EQ((uint64_t)ft_ptx_opd(e, find_op(e, FT_PTX_OP_MOV, 3), 1)->value, 0x3FF8000000000000ull);
  /* cvt types and rounding */
  const ft_ptx_instr_t *c1 = find_op(e, FT_PTX_OP_CVT, 0), *c2 = find_op(e, FT_PTX_OP_CVT, 1);
  ASSERT(c1->type == FT_PTX_T_F32 && c1->type2 == FT_PTX_T_S32 && c1->rnd == FT_PTX_RND_RN);
  ASSERT(c2->type == FT_PTX_T_S32 && c2->type2 == FT_PTX_T_F32 && c2->rnd == FT_PTX_RND_RZI);
  ASSERT(find_op(e, FT_PTX_OP_MUL, 0)->flags & FT_PTX_F_WIDE);
  ASSERT(find_op(e, FT_PTX_OP_MAD, 0)->flags & FT_PTX_F_LO);
  ASSERT(find_op(e, FT_PTX_OP_ADD, 1)->flags & FT_PTX_F_CC);
  ASSERT_EQ(find_op(e, FT_PTX_OP_ADDC, 0)->type, FT_PTX_T_U32);
  const ft_ptx_instr_t *br = find_op(e, FT_PTX_OP_BRA, 0);
  ASSERT(br->guard_neg && (br->flags & FT_PTX_F_UNI));
  ASSERT_EQ(e->instrs[ft_ptx_opd(e, br, 0)->index].op, FT_PTX_OP_RET);
  const ft_ptx_instr_t *sf = find_op(e, FT_PTX_OP_SHF, 0);
  ASSERT(sf->mode == FT_PTX_SHF_L && (sf->flags & FT_PTX_F_WRAP));
  ASSERT_EQ(find_op(e, FT_PTX_OP_VOTE, 0)->mode, FT_PTX_VOTE_BALLOT);
  ASSERT_EQ(find_op(e, FT_PTX_OP_BAR, 0)->mode, FT_PTX_BAR_RED_POPC);
  const ft_ptx_operand_t *env = ft_ptx_opd(e, find_op(e, FT_PTX_OP_MOV, 5), 1);
  ASSERT_EQ(env->kind, FT_PTX_OPD_SREG);
  ASSERT_EQ(env->index, (uint32_t)FT_PTX_SR_ENVREG);
  ASSERT_EQ(env->count, 2u);
  const ft_ptx_instr_t *pk = find_op(e, FT_PTX_OP_CVT, 2);
  ASSERT(pk->nops == 3 && pk->type == FT_PTX_T_F16X2 && pk->type2 == FT_PTX_T_F32);
  ft_ptx_module_free(m);
  return TEST_OK;
}

TEST_IMPL(parse_errors_name_line_and_reason) {
  static const struct {
    const char *body;
    unsigned line;
    const char *why;
  } cases[] = {
      {" .reg .b32 %r<2>;\n frobnicate.b32 %r1, %r1;\n", 7, "unsupported opcode"},
      {" .reg .b32 %r<2>;\n add.s32 %r1, %r9, 1;\n", 7, "undeclared register"},
      {" .reg .b32 %r<2>;\n add.s32 %r1, %r1, 1\n ret;\n", 8, "expected ';'"},
      {" bra $nowhere;\n ret;\n", 6, "unknown name"},
      {" bra $end;\n$end:\n", 6, "end of the function"},
      {" .reg .b32 %r<2>;\n add.s32 %r1, %r1;\n", 7, "operands"},
      {" .reg .b32 %r<2>;\n add.zz.s32 %r1, %r1, 1;\n", 7, "unknown modifier"},
      {" .reg .b32 %r<2>;\n mov.u32 %r1, 0fZZ;\n", 7, "bad number"},
      {" .reg .b32 %r<2>;\n wgmma.fence.sync.aligned;\n", 7, "unsupported opcode"},
      {" .reg .b32 %r<2>;\n tex.2d.v4.f32.f32 {%r1,%r1,%r1,%r1}, [t, {%r1,%r1}];\n", 7, "unknown name 't'"},
      {" .reg .b32 %r<2>;\n mov.u32 %r1, 1; /* unterminated\n", 7, "unterminated comment"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[1024];
    snprintf(text, sizeof text, HDR ".visible .entry e()\n{\n%s}\n", cases[i].body);
    ft_ptx_module_t *m = (ft_ptx_module_t *)1;
    char err[256];
    ASSERT_EQ(ft_ptx_parse(text, strlen(text), &m, err, sizeof err), -1);
    ASSERT(m == NULL);
    char want[64];
    snprintf(want, sizeof want, "line %u: not analysed: ", cases[i].line);
    if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, cases[i].why))
      FT_FAIL_("case %zu: '%s', expected '%s...%s'", i, err, want, cases[i].why);
  }
  /* module-level trouble */
  const char *mods[] = {".target sm_75\n", HDR ".tex .u32 t;\n", HDR ".entry e(.param .u64 p\n",
                        HDR ".alias a, b;\n", HDR ".visible .entry e() { ret; }\n.visible .entry e() { ret; }\n"};
  for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++) {
    ft_ptx_module_t *m;
    char err[256];
    ASSERT_EQ(ft_ptx_parse(mods[i], strlen(mods[i]), &m, err, sizeof err), -1);
    ASSERT(strstr(err, "not analysed") != NULL);
  }
  return TEST_OK;
}

TEST_IMPL(parse_debug_directives_and_decls) {
  const char *text = "//\n" HDR
      ".file 1 \"/tmp/x.cu\"\n"
      ".extern .func (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n"
      "\t.param .b64 vprintf_param_1\n)\n;\n"
      ".func f(.param .b64 f_p);\n"
      ".weak .func f(.param .b64 f_p)\n{\n .reg .b64 %rd<2>;\n .loc 1 3 5\n ld.param.u64 %rd1, [f_p];\n ret;\n}\n"
      ".visible .entry e(\n .param .u64 .ptr .global .align 16 e_p\n)\n.reqntid 32, 2\n.minnctapersm 2\n{\n"
      " .local .align 8 .b8 __local_depot0[16];\n .reg .b64 %SP;\n .reg .b64 %SPL;\n"
      " .pragma \"nounroll\";\n mov.u64 %SPL, __local_depot0;\n cvta.local.u64 %SP, %SPL;\n ret;\n}\n"
      ".section .debug_str\n{\n$L__info_string0:\n.b8 95,90,0\n}\n";
  ft_ptx_module_t *m = parse(text);
  ASSERT_EQ(m->nfuncs, 3u);
  const ft_ptx_function_t *vp = ft_ptx_find_function(m, "vprintf");
  ASSERT(vp && vp->is_decl && vp->linkage == FT_PTX_LINK_EXTERN && vp->nrets == 1);
  const ft_ptx_function_t *f = ft_ptx_find_function(m, "f");
  ASSERT(f && !f->is_decl && f->linkage == FT_PTX_LINK_WEAK && f->ninstrs == 2);
  const ft_ptx_function_t *e = ft_ptx_find_function(m, "e");
  ASSERT_EQ(e->params[0].ptr_space, FT_PTX_SP_GLOBAL);
  ASSERT_EQ(e->params[0].ptr_align, 16u);
  ASSERT_EQ(e->reqntid[0], 32u);
  ASSERT_EQ(e->reqntid[1], 2u);
  ASSERT_EQ(e->reqntid[2], 1u);
  ASSERT_EQ(e->minnctapersm, 2u);
  ASSERT_EQ(e->nvars, 1u);
  ASSERT_EQ(e->vars[0].space, FT_PTX_SP_LOCAL);
  ASSERT_EQ(e->vars[0].size, 16u);
  ASSERT_EQ(find_op(e, FT_PTX_OP_CVTA, 0)->space, FT_PTX_SP_LOCAL);
  ft_ptx_module_free(m);
  return TEST_OK;
}
