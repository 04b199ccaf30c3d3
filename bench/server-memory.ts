/**
 * Where the server's memory is, phase by phase and case by case: its resident set from /proc
 * (sampled every 200 ms, and the kernel's own peak, VmHWM, reset at the start of each window so
 * that a spike between two samples still counts), and the V8 heap and external memory that the
 * server's own /metrics reports (prom-client's default metrics), read at the end of the window.
 * RSS alone cannot tell a retained JavaScript heap from buffers outside it or from allocator
 * pages that were never returned; the three side by side can (docs/performance.md, "Server
 * memory").
 */
import { memoryOf, resetPeakMemory } from './server-process.js';

export interface ServerHeap {
  heap_used_mib: number;
  heap_total_mib: number;
  /** memory V8 accounts for outside its heap: Buffers and ArrayBuffers (socket and pg reads) */
  external_mib: number;
}

export interface MemoryWindow {
  /** resident set when the window opened */
  rss_start_mib: number;
  /** peak resident set during the window */
  rss_peak_mib: number;
  /** resident set when it closed */
  rss_end_mib: number;
  heap?: ServerHeap;
}

const mib = (bytes: number) => Math.round(bytes / 104_857.6) / 10;

/** The heap figures of the server's /metrics, or undefined when it does not answer them. */
export async function heapOf(baseUrl: string): Promise<ServerHeap | undefined> {
  try {
    const text = await (await fetch(`${baseUrl}/metrics`)).text();
    const metric = (name: string) => {
      const value = new RegExp(`^posture_${name} (\\S+)$`, 'm').exec(text)?.[1];
      return value === undefined ? undefined : Number(value);
    };
    const used = metric('nodejs_heap_size_used_bytes');
    const total = metric('nodejs_heap_size_total_bytes');
    const external = metric('nodejs_external_memory_bytes');
    if (used === undefined || total === undefined || external === undefined) return undefined;
    return { heap_used_mib: mib(used), heap_total_mib: mib(total), external_mib: mib(external) };
  } catch {
    return undefined;
  }
}

/**
 * Samples the server's resident set for the whole of a phase; `window()` opens a sub-window (one
 * load case) whose own peak is kept apart from the phase's.
 */
export class RssSampler {
  private peak = 0;
  private windowPeak = 0;
  private windowStart = 0;
  private hwmReset = false;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), 200);
    this.sample();
  }

  private sample(): number {
    const rss = memoryOf(this.pid).rss_mib;
    this.peak = Math.max(this.peak, rss);
    this.windowPeak = Math.max(this.windowPeak, rss);
    return rss;
  }

  /** the phase's peak so far, VmHWM included when it was never reset */
  get phasePeak(): number {
    return this.peak;
  }

  openWindow(): void {
    this.windowStart = this.sample();
    this.windowPeak = this.windowStart;
    this.hwmReset = resetPeakMemory(this.pid);
  }

  async closeWindow(baseUrl: string): Promise<MemoryWindow> {
    const end = this.sample();
    // The kernel's peak covers what happened between two samples; it is only this window's
    // when it was reset at the window's start.
    const hwm = this.hwmReset ? memoryOf(this.pid).hwm_mib : 0;
    const peak = Math.max(this.windowPeak, hwm);
    this.peak = Math.max(this.peak, peak);
    const heap = await heapOf(baseUrl);
    return {
      rss_start_mib: this.windowStart,
      rss_peak_mib: peak,
      rss_end_mib: end,
      ...(heap ? { heap } : {}),
    };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
