/** Scores and score configs: versioned score rows, their summary, the checks a write makes (targets, config rules). */
export { SCORE_SOURCES, findScores, listScores, writeScoreVersions } from './records.ts';
export type { ScoreDataType, ScorePage, ScoreRecord, ScoreSource, ScoreTarget } from './records.ts';
export { summarizeScores } from './summary.ts';
export type { ScoreNameSummary, ScoreSummaryScope } from './summary.ts';
export { existingSessions, existingSpans, existingTraces } from './targets.ts';
export {
  SCORE_DATA_TYPES,
  ScoreConfigError,
  checkScoreAgainstConfig,
  createScoreConfig,
  findActiveScoreConfigs,
  findArchivedScoreConfigNames,
  getScoreConfig,
  listScoreConfigs,
  updateScoreConfig,
} from './configs.ts';
export type { ScoreConfig } from './configs.ts';
export { TELEMETRY_SCORE_SOURCE, writeTelemetryScores } from './telemetry.ts';
