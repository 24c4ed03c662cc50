import type { ExportMinute } from '@aos/storage';

/** What one slice of an export may hold: the engine materializes a slice's rows at once. */
export interface SliceBudget {
  maxTraces: number;
  /** Bytes of trace inputs and outputs (the heavy part of a trace row). */
  maxTextBytes: number;
}

export interface TimeSlice {
  startTimeMs: number;
  endTimeMs: number;
}

/**
 * Cuts an export's window into consecutive slices, at minute starts: a slice takes minutes
 * while its traces and text bytes stay within the budget. A single minute over the budget
 * is a slice of its own: minutes are the finest cut.
 *
 * `minutes` are the window's minutes that have spans, in order; a trace belongs to the
 * slice its first span starts in, so the slices together hold every trace once.
 */
export function planExportSlices(window: TimeSlice, minutes: readonly ExportMinute[], budget: SliceBudget): TimeSlice[] {
  const slices: TimeSlice[] = [];
  let from = window.startTimeMs;
  let traces = 0;
  let textBytes = 0;
  for (const minute of minutes) {
    const full = traces + minute.traces > budget.maxTraces || textBytes + minute.textBytes > budget.maxTextBytes;
    if (traces > 0 && full && minute.startMs > from) {
      slices.push({ startTimeMs: from, endTimeMs: minute.startMs });
      from = minute.startMs;
      traces = 0;
      textBytes = 0;
    }
    traces += minute.traces;
    textBytes += minute.textBytes;
  }
  if (from < window.endTimeMs) slices.push({ startTimeMs: from, endTimeMs: window.endTimeMs });
  return slices;
}
