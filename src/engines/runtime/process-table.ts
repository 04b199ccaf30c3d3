/**
 * Which process-tree node a running process is: the pid table (`<container>#<pid>` -> lineage,
 * bounded, least recently started evicted first) and, for a process whose parent the sensor
 * never saw, adoption by name. It works on the state's `pids` record in place.
 */
import { lineageDepth, type WorkloadContainerState } from './state.js';

/** A container instance: the id without its runtime scheme, as long as Falco's short id. */
export const instanceKey = (containerId: string): string =>
  containerId.replace(/^[a-z0-9-]+:\/\//, '').slice(0, 12);

export class ProcessTable {
  private count: number;

  constructor(
    private readonly state: WorkloadContainerState,
    private readonly maxTracked: number,
  ) {
    this.count = Object.keys(state.pids).length;
  }

  lineageOf(containerId: string, pid: number): string | undefined {
    return this.state.pids[`${instanceKey(containerId)}#${pid}`];
  }

  track(containerId: string, pid: number, lineage: string): void {
    const key = `${instanceKey(containerId)}#${pid}`;
    const pids = this.state.pids;
    if (key in pids) delete pids[key];
    else this.count++;
    pids[key] = lineage; // re-inserted last: the table evicts the least recently started
    if (this.count > this.maxTracked) {
      for (const oldest in pids) {
        delete pids[oldest];
        this.count--;
        break;
      }
    }
  }

  /**
   * A process whose parent is unknown (started before the sensor, or its pid was evicted) is
   * taken for the shallowest known node of the same name, the baseline's first, rather than a
   * new root: otherwise every restart of the sensor would look like drift.
   */
  adopt(comm: string): string | undefined {
    for (const profile of [this.state.baseline, this.state.ongoing]) {
      let best: string | undefined;
      for (const [lineage, node] of Object.entries(profile.nodes)) {
        if (node.comm !== comm) continue;
        if (best === undefined || lineageDepth(lineage) < lineageDepth(best)) best = lineage;
      }
      if (best !== undefined) return best;
    }
    return undefined;
  }
}
