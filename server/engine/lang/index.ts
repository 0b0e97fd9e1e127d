/**
 * Keelson's policy language (Aptomi-compatible): expressions, templates,
 * criteria and instance naming. Pure functions over plain data; every
 * fallible call returns a `Result` instead of throwing.
 *
 * Each dialect has its own folder, split by phase (`govaluate/`,
 * `gotemplate/`: lex → parse → eval/exec), and runs under the shared
 * `budget.ts`; shared Go rules live beside them (`gofmt.ts`: strconv; `gosprint.ts`: fmt; `re2.ts`).
 */

export type { LangError, LangErrorCode, Result } from './result';
export { langDiagnostic } from './result';
export {
  coerceLabel,
  coerceLabelSet,
  compileExpr,
  compileExprCached,
  DEFAULT_EXPR_LIMITS,
  evalExpr,
  evalExprDetailed,
  type CompiledExpr,
  type EvalOptions,
  type ExprCache,
  type ExprLimits,
  type ExprOutcome,
  type ExprParams,
} from './govaluate';
export {
  compileTemplate,
  compileParamTree,
  compileTemplateCached,
  DEFAULT_TEMPLATE_LIMITS,
  renderParamTree,
  renderPlan,
  renderTemplate,
  type CompiledTemplate,
  type CompileOptions,
  type ParamPlan,
  type RenderOptions,
  type TemplateCache,
  type TemplateLimits,
} from './gotemplate';
export { criteriaMatch, evalCriteria, validateCriteria, type Criteria, type CriteriaOutcome } from './criteria';
export { deployName, fnv1a32, fnv1a64, fnv1a64Parts, instanceId } from './hash';
