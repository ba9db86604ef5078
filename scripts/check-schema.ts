// Compares the schema built from schema/ with the last released one and exits
// non-zero on a breaking change, listing every change so a reviewer sees them.
//   npm run schema:check [-- --baseline <file>] [-- --schema <file>]
// The released file is updated on release: `npm run schema:release` (see docs/federation-and-schema.md).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema as buildSchemaFromSdl } from 'graphql';
import { serviceSchema } from '../src/modules/index.ts';
import { printSchemaFile, RELEASED_SCHEMA_FILE } from '../src/graphql/sdl.ts';

const LABEL: Record<CriticalityLevel, string> = {
  [CriticalityLevel.Breaking]: 'BREAKING ',
  [CriticalityLevel.Dangerous]: 'dangerous',
  [CriticalityLevel.NonBreaking]: 'safe     ',
};

/** Diffs two SDL texts; `breaking` counts the changes that would fail an existing client. */
export async function checkSchema(releasedSdl: string, currentSdl: string, releasedName: string) {
  const changes = await diff(buildSchemaFromSdl(releasedSdl), buildSchemaFromSdl(currentSdl));
  const lines = changes.map((change) => {
    const reason = change.criticality.reason ? ` (${change.criticality.reason})` : '';
    return `${LABEL[change.criticality.level]}  ${change.message}${reason}`;
  });
  const breaking = changes.filter((c) => c.criticality.level === CriticalityLevel.Breaking).length;
  lines.push(
    breaking > 0
      ? `\n${breaking} breaking change(s) against ${releasedName}. Existing clients would fail.`
      : `\nNo breaking change against ${releasedName} (${changes.length} change(s) in all).`,
  );
  return { breaking, report: lines.join('\n') };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { baseline: { type: 'string' }, schema: { type: 'string' } } });
  const baselineFile = path.resolve(values.baseline ?? RELEASED_SCHEMA_FILE);
  const relative = path.relative(process.cwd(), baselineFile);
  // Both sides as published (printed, as introspection shows them): applied
  // directives such as @key are not part of the client contract, and the
  // federation contract is checked by composition instead.
  const current = values.schema
    ? fs.readFileSync(path.resolve(values.schema), 'utf8')
    : printSchemaFile(serviceSchema());
  const { breaking, report } = await checkSchema(
    fs.readFileSync(baselineFile, 'utf8'),
    current,
    relative.startsWith('..') ? baselineFile : relative,
  );
  if (breaking > 0) {
    console.error(report);
    process.exitCode = 1;
  } else {
    console.log(report);
  }
}
