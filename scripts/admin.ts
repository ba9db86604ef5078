import { EXIT_USAGE, runCli } from './lib/cli.ts';

// Only the usage text and the command table load at start: each command's module (and through it the
// service's modules, graphql, the database drivers) is imported when that command runs, so `help` or a
// mistyped command answers at once. Measured in BENCHMARKS.md (issue 30 item 8).

const USAGE = `Usage: npm run admin -- <command> [options]

Commands that read or write a company's data act inside one tenant: --tenant SLUG
(default: default). The tenant commands name theirs with --slug.

Commands:
  user:create --email E --name N [--admin] [--password-stdin] [--tenant T]
      Creates a user. The password is read from stdin with --password-stdin,
      otherwise asked for twice on the terminal without echo.
  token:create --email E --name N [--abilities a,b] [--expires-at T] [--tenant T]
      Creates a personal access token for that user (abilities: *, tokens:manage,
      catalog:read, catalog:write, configurations:write, graphql:any; default *; T an ISO 8601
      date and time). The token is printed alone on the last line of stdout,
      once: it is not stored anywhere readable. It is a root (no parent token)
      and counts towards MAX_TOKENS_PER_USER.
  token:list [--email E] [--tenant T]
      Lists personal access tokens (never their hashes), optionally of one user.
  token:revoke ID [--tenant T]
      Deletes the token with that id, and every token created from it; their
      bearers stop working at once.
  tokens:prune-expired [--hours H] [--tenant T]
      Deletes tokens that expired more than H hours ago (default 24), by their own
      expires_at or by TOKEN_EXPIRATION_MINUTES when that is set.
  configurations:prune [--days D] [--tenant T]
      Deletes saved configurations older than D days (default CONFIGURATION_RETENTION_DAYS;
      with neither set, nothing is deleted).
  catalog:export [--out FILE] [--tenant T]
      Writes the tenant's whole catalogue as {"products": [...]} (UpsertProductInput, no ids),
      ordered by sku, to FILE or stdout.
  catalog:import FILE [--dry-run] [--tenant T]
      Upserts each product of such a file by sku, one transaction per product, and
      prints what was created, updated, unchanged or failed (with the reasons).
      --dry-run does all of it and writes nothing. Exit 0: all imported; 1: some
      failed; 2: the file could not be read or is not such a file (nothing
      written); 75: the database was unavailable (the import stopped).
  documents:push FILE [--tenant T]
      Registers the trusted documents of FILE, a JSON object {"<sha256 hex>": "<document>"}
      (GraphQL Codegen's persisted-documents.json): each is checked (hash, syntax, the
      schema, the limits) and the whole file refused, each bad entry with its reason,
      or added. Exit 0: all registered; 1: refused (nothing written).
  documents:list [--tenant T]
      Lists the tenant's trusted documents.
  documents:remove HASH... [--tenant T]
      Removes trusted documents; requests naming them answer PERSISTED_QUERY_NOT_FOUND
      on every instance within a second.
  tenant:create --slug S --name N [--host H]...
      Creates a tenant (a customer company): S is 1 to 40 of a-z, 0-9 and '-';
      each host a host name its requests arrive for (lowercased, port dropped).
  tenant:list
      Lists the tenants with their state and hosts.
  tenant:hosts --slug S [--add H]... [--remove H]...
      Adds and removes hosts of a tenant. While no tenant has a host, every request
      is the default tenant's; once one has, requests for other hosts answer 404.
  tenant:suspend --slug S
  tenant:resume --slug S
      Its requests answer 403 while it is suspended; its data stays.
  tenant:delete --slug S --yes
      Deletes the tenant and every row it owns, in small batches (it is suspended
      first), and prints how many rows went from each table. The default tenant
      goes only while another one exists.
  help
      Shows this text.

The database is the server's: DATABASE_URL when set, else the embedded one in DATA_DIR.
`;

type Command = (args: string[]) => Promise<void | number>;
const accounts = () => import('./admin/accounts.ts');
const catalog = () => import('./admin/catalog.ts');
const tenants = () => import('./admin/tenants.ts');
const documents = () => import('./admin/documents.ts');

const COMMANDS = new Map<string, () => Promise<Command>>([
  ['catalog:export', async () => (await catalog()).catalogExport],
  ['catalog:import', async () => (await catalog()).catalogImport],
  ['user:create', async () => (await accounts()).userCreate],
  ['token:create', async () => (await accounts()).tokenCreate],
  ['token:list', async () => (await accounts()).tokenList],
  ['token:revoke', async () => (await accounts()).tokenRevoke],
  ['tokens:prune-expired', async () => (await accounts()).tokensPruneExpired],
  ['configurations:prune', async () => (await accounts()).configurationsPrune],
  ['documents:push', async () => (await documents()).documentsPush],
  ['documents:list', async () => (await documents()).documentsList],
  ['documents:remove', async () => (await documents()).documentsRemove],
  ['tenant:create', async () => (await tenants()).tenantCreate],
  ['tenant:list', async () => (await tenants()).tenantList],
  ['tenant:hosts', async () => (await tenants()).tenantHosts],
  ['tenant:suspend', async () => (await tenants()).tenantSuspend],
  ['tenant:resume', async () => (await tenants()).tenantResume],
  ['tenant:delete', async () => (await tenants()).tenantDelete],
]);

runCli(async () => {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  const load = command === undefined ? undefined : COMMANDS.get(command);
  if (!load) {
    process.stderr.write(
      `${command === undefined ? 'No command given.' : `Unknown command '${command}'.`}\n\n${USAGE}`,
    );
    return EXIT_USAGE;
  }
  return (await (await load())(args)) ?? 0;
});
