/**
 * The insight's signals: rule hits aggregated per rule and subject (a program, a path, a
 * destination) with counts, first/last seen, the highest severity seen and a few process ids.
 * Bounded: past `maxSignals` distinct signals, new ones are only counted (`droppedSignals`).
 */
import type { RuleHit } from './rules.js';
import { severityRank } from './severity.js';
import type { WorkloadContainerState } from './state.js';

const MAX_PROCESS_IDS_PER_SIGNAL = 5;

export class SignalBook {
  private count: number;

  constructor(
    private readonly state: WorkloadContainerState,
    private readonly maxSignals: number,
  ) {
    this.count = Object.keys(state.signals).length;
  }

  raise(hit: RuleHit, at: string, processId: string): void {
    const key = `${hit.rule}|${hit.subject}`;
    const existing = this.state.signals[key];
    if (!existing) {
      if (this.count >= this.maxSignals) {
        this.state.droppedSignals++;
        return;
      }
      this.state.signals[key] = { ...hit, count: 1, firstSeen: at, lastSeen: at, processIds: [processId] };
      this.count++;
      return;
    }
    existing.count++;
    if (at > existing.lastSeen) existing.lastSeen = at;
    if (at < existing.firstSeen) existing.firstSeen = at;
    if (severityRank(hit.severity) > severityRank(existing.severity)) existing.severity = hit.severity;
    existing.malicious ||= hit.malicious;
    const ids = existing.processIds;
    if (!ids.includes(processId) && ids.length < MAX_PROCESS_IDS_PER_SIGNAL) ids.push(processId);
  }
}
