/** @aos/masking: masking policies (validation, compilation) and their application to text and OTLP exports. */
export {
  parsePolicy,
  MaskingPolicyError,
  MaskingPolicySchema,
  DEFAULT_FIELDS,
  MAX_RULES,
  MAX_PATTERN_LENGTH,
  type MaskingPolicy,
  type MaskingRule,
  type Replacement,
  type RuleFields,
  type PolicyProblem,
} from './policy.ts';
export { compilePolicy, maskingHashKey, type CompiledPolicy, type CompileOptions } from './compile.ts';
export { DETECTOR_NAMES, type DetectorName } from './detectors.ts';
export { maskText, type TextMatch, type TextField } from './mask-text.ts';
export { maskExport, type ExportMasking, type SpanMasking } from './mask-export.ts';
