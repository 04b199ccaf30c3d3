/**
 * A fingerprint's process tree as nested lists: each process with its programs, the files it
 * touched and its connections. What the baseline does not cover (`drift`) is marked with the word
 * "drift" as well as a colour, so it reads without colour and to a screen reader. "Only drift"
 * keeps the branches that lead to a drifted process or item.
 */
import { useId, useState } from 'react';
import type { Fingerprint, FingerprintProcess } from '../api/types.js';
import { Time } from './time.js';

function DriftMarker() {
  return <span className="badge drift-marker">drift</span>;
}

/** The process, or something it did, is not covered by the baseline. */
export function processDrifts(process: FingerprintProcess): boolean {
  return (
    process.drift ||
    process.programs.some((p) => p.drift) ||
    process.files.some((f) => f.drift) ||
    process.connections.some((c) => c.drift)
  );
}

function subtreeDrifts(process: FingerprintProcess): boolean {
  return processDrifts(process) || process.children.some(subtreeDrifts);
}

export function countProcesses(processes: FingerprintProcess[]): { all: number; drifted: number } {
  let all = 0;
  let drifted = 0;
  const visit = (process: FingerprintProcess) => {
    all++;
    if (processDrifts(process)) drifted++;
    process.children.forEach(visit);
  };
  processes.forEach(visit);
  return { all, drifted };
}

function commandOf(program: FingerprintProcess['programs'][number]): string {
  return [program.comm, ...program.args].join(' ');
}

function ProcessNode({ process, onlyDrift }: { process: FingerprintProcess; onlyDrift: boolean }) {
  const children = onlyDrift ? process.children.filter(subtreeDrifts) : process.children;
  const [main, ...others] = process.programs;
  const files = onlyDrift ? process.files.filter((f) => f.drift) : process.files;
  const connections = onlyDrift ? process.connections.filter((c) => c.drift) : process.connections;
  return (
    <li className={processDrifts(process) ? 'process process-drift' : 'process'}>
      <div className="process-line">
        {process.drift && <DriftMarker />}
        <code className="process-command">{main ? commandOf(main) : `process ${process.id}`}</code>
        <span className="muted process-meta">
          uid {process.uid} · ran {process.repetition.execCount}× · last{' '}
          <Time value={process.repetition.recentTimestamp} />
          {main?.hasPattern && ' · arguments vary (pattern)'}
        </span>
      </div>
      {(others.length > 0 || files.length > 0 || connections.length > 0) && (
        <ul className="process-items">
          {others.map((program) => (
            <li key={`p:${program.comm}:${program.args.join(' ')}`}>
              {program.drift && <DriftMarker />} program <code>{commandOf(program)}</code>
            </li>
          ))}
          {files.map((file) => (
            <li key={`f:${file.path}`}>
              {file.drift && <DriftMarker />} file <code>{file.path}</code>
            </li>
          ))}
          {connections.map((connection) => (
            <li key={`c:${connection.address}:${connection.port}`}>
              {connection.drift && <DriftMarker />} connection{' '}
              <code>
                {connection.hostname || connection.k8sName || connection.address}:{connection.port}
              </code>
              {connection.trustedCIDR ? (
                <span className="badge badge-trusted">trusted {connection.trustedCIDR}</span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {children.length > 0 && (
        <ul className="process-tree">
          {children.map((child) => (
            <ProcessNode key={child.id} process={child} onlyDrift={onlyDrift} />
          ))}
        </ul>
      )}
    </li>
  );
}

export function ProcessTree({ fingerprint, label }: { fingerprint: Fingerprint; label: string }) {
  const id = useId();
  const [onlyDrift, setOnlyDrift] = useState(false);
  const counts = countProcesses(fingerprint.containers.flatMap((c) => c.processes));
  return (
    <section className="process-view" aria-label={label}>
      <div className="toolbar">
        <span>
          {counts.all} {counts.all === 1 ? 'process' : 'processes'}, <strong>{counts.drifted}</strong> with
          drift
        </span>
        {counts.drifted > 0 && (
          <span className="filter-check">
            <input
              id={`${id}-only`}
              type="checkbox"
              checked={onlyDrift}
              onChange={(e) => setOnlyDrift(e.target.checked)}
            />
            <label htmlFor={`${id}-only`}>Only drift</label>
          </span>
        )}
      </div>
      {fingerprint.containers.map((container) => {
        const processes = onlyDrift ? container.processes.filter(subtreeDrifts) : container.processes;
        return (
          <div key={container.id} className="process-container">
            <p>
              Container <strong>{container.name}</strong> · <code>{container.imageName}</code>
            </p>
            {processes.length === 0 ? (
              <p className="empty">No process recorded.</p>
            ) : (
              <ul className="process-tree process-root">
                {processes.map((process) => (
                  <ProcessNode key={process.id} process={process} onlyDrift={onlyDrift} />
                ))}
              </ul>
            )}
          </div>
        );
      })}
    </section>
  );
}
