/** Findings: raised, listed, counted, moved between statuses, and how far a finding reaches. */
export { FINDING_ASSET_TYPES, FINDING_MOVES, FINDING_STATUSES, INVESTIGATOR_KINDS } from './finding.ts';
export type { Finding, FindingAssetType, FindingChange, FindingStatus, InvestigatorKind } from './finding.ts';
export { countFindings, findingHistory, getFinding, listFindings } from './read.ts';
export type { FindingQuery } from './read.ts';
export { FindingMoveError, MAX_EVIDENCE, raiseFinding, saveRiskAssessment, updateFinding } from './records.ts';
export type { RaiseFindingInput } from './records.ts';
export { findingReach } from './reach.ts';
export type { FindingReach } from './reach.ts';
