import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import Ajv2020Module from 'ajv/dist/2020.js';
import ajvFormatsModule from 'ajv-formats';
import { runtimeEventJsonSchema } from './event-schema.js';
import { GENERATED_FILES } from './generated-files.js';
import { exec, httpRequest, T0 } from './testing.js';

// Both packages are CommonJS: at run time the default import is the class/plugin itself.
const Ajv2020 = Ajv2020Module as unknown as typeof Ajv2020Module.default;
const addFormats = ajvFormatsModule as unknown as (ajv: InstanceType<typeof Ajv2020>) => void;

const schemaFile = GENERATED_FILES[0]!.path;
const sampleFile = GENERATED_FILES[1]!.path;

describe('runtime event JSON Schema', () => {
  test('schemas/runtime-event.schema.json is the TypeBox schema written out', () => {
    const onDisk = JSON.parse(readFileSync(schemaFile, 'utf8'));
    assert.deepEqual(
      onDisk,
      runtimeEventJsonSchema(),
      'regenerate with: npx tsx src/engines/runtime/generated-files.ts',
    );
  });

  test('the sample stream on disk is the generator output', () => {
    assert.equal(readFileSync(sampleFile, 'utf8'), GENERATED_FILES[1]!.content());
  });

  test('a standard 2020-12 validator accepts the sample events and refuses broken ones with the file alone', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')));
    const lines = readFileSync(sampleFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const native = lines.filter((line) => 'type' in line);
    assert.ok(native.length > 300);
    for (const line of native) assert.ok(validate(line), JSON.stringify(validate.errors));
    assert.ok(validate(httpRequest(T0, '/x')));

    const missingPid = exec(T0, 1, 0, 'sh') as { process: Record<string, unknown> };
    delete missingPid.process.pid;
    assert.equal(validate(missingPid), false);
    assert.equal(validate({ ...exec(T0, 1, 0, 'sh'), extra: true }), false, 'unknown fields are refused');
    assert.equal(validate({ ...exec(T0, 1, 0, 'sh'), timestamp: 'yesterday' }), false);
    assert.equal(validate({ ...exec(T0, 1, 0, 'sh'), type: 'process_fork' }), false);
  });
});
