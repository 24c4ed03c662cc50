import type { FindingSeverity, RiskAssessment } from '@aos/domain';

/**
 * Findings: problems worth investigating, raised by monitors, evaluators, trace flags,
 * masking or people. `raiseFinding` is the one way to record a detection: repeated
 * detections of one problem (same dedupe key) update the open finding instead of adding
 * another. Each change is a new version of the row; status and assignee changes also
 * leave a history row.
 */

export const FINDING_STATUSES = ['open', 'investigating', 'resolved', 'dismissed'] as const;
export type FindingStatus = (typeof FINDING_STATUSES)[number];

/** What found the problem. */
export const INVESTIGATOR_KINDS = ['monitor', 'evaluator', 'trace_flag', 'masking', 'person'] as const;
export type InvestigatorKind = (typeof INVESTIGATOR_KINDS)[number];

/** What the problem is about. */
export const FINDING_ASSET_TYPES = ['project', 'trace', 'span', 'session', 'monitor', 'evaluator'] as const;
export type FindingAssetType = (typeof FINDING_ASSET_TYPES)[number];

/** Allowed status moves; resolved and dismissed findings can be reopened. */
export const FINDING_MOVES: Record<FindingStatus, readonly FindingStatus[]> = {
  open: ['investigating', 'resolved', 'dismissed'],
  investigating: ['open', 'resolved', 'dismissed'],
  resolved: ['open'],
  dismissed: ['open'],
};

export interface Finding {
  id: string;
  projectId: string;
  dedupeKey: string;
  title: string;
  description: string;
  severity: FindingSeverity;
  status: FindingStatus;
  investigator: { kind: InvestigatorKind; id: string };
  asset: { type: FindingAssetType; id: string };
  assignee: string | null;
  /** Trace ids, or `traceId/spanId` for spans, newest first. */
  evidence: string[];
  firstSeen: string;
  lastSeen: string;
  occurrences: number;
  riskAssessment: (RiskAssessment & { assessedAt: string; assessedBy: string }) | null;
  createdAt: string;
  updatedAt: string;
}

export interface FindingChange {
  at: string;
  actor: string;
  field: 'status' | 'assignee';
  from: string | null;
  to: string | null;
}
