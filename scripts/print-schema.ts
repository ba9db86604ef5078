// Writes the merged schema, as served, to schema.graphql (or to the path given,
// e.g. release/schema.graphql by `npm run schema:release`).
import fs from 'node:fs';
import path from 'node:path';
import { serviceSchema } from '../src/modules/index.ts';
import { PRINTED_SCHEMA_FILE, printSchemaFile } from '../src/graphql/sdl.ts';

const target = path.resolve(process.argv[2] ?? PRINTED_SCHEMA_FILE);
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.writeFileSync(target, printSchemaFile(serviceSchema()));
console.log(`wrote ${path.relative(process.cwd(), target)}`);
