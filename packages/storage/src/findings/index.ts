/** Findings: raised, listed, counted, moved between statuses, and how far a finding reaches. */
export {
  FINDING_ASSET_TYPES,
  FINDING_MOVES,
  FINDING_STATUSES,
  FindingMoveError,
  INVESTIGATOR_KINDS,
  MAX_EVIDENCE,
  countFindings,
  findingHistory,
  getFinding,
  listFindings,
  raiseFinding,
  saveRiskAssessment,
  updateFinding,
} from './records.ts';
export type { Finding, FindingAssetType, FindingChange, FindingQuery, FindingStatus, InvestigatorKind, RaiseFindingInput } from './records.ts';
export { findingReach } from './reach.ts';
export type { FindingReach } from './reach.ts';
