// The service containers cadre can run beside a sandbox (PostgreSQL, MariaDB for MySQL, Redis): their Debian packages, how each
// starts as its own non-root user, how it is health-checked, and the connection variables the sandbox gets.
import { CadreError, exitCodes } from '../../errors.js';

/** The services cadre can run, by the names settings and labels use. */
export const serviceNames = ['postgres', 'mysql', 'redis'] as const;
export type ServiceName = (typeof serviceNames)[number];

/** The throwaway credentials of one container's service, generated when the service is first created. */
export interface ServiceCredentials {
  user: string;
  password: string;
  database: string;
}

export interface ServiceDefinition {
  name: ServiceName;
  /** What people call it, for messages. */
  title: string;
  /** Debian packages of its image (with their dependencies). */
  packages: readonly string[];
  port: number;
  /** The account the server runs as (created by the Debian package): never root. */
  user: string;
  /** Where its data lives: a volume of its own, removed with the container. */
  dataDir: string;
  /** The container's command (run by `sh -c` as `user`, with CADRE_SERVICE_* in its environment). */
  start: string;
  /** The health check run inside the service container (`sh -c`); exit 0 when it accepts connections. */
  health: string;
  /** The variables set in the sandbox, the names projects and their ORMs read. */
  env(host: string, credentials: ServiceCredentials): Record<string, string>;
}

// Each start script initialises the data folder on first start only, then execs the server as PID 1 (an OOM kill is its exit).
const postgresStart = [
  'set -e',
  'bin=$(ls -d /usr/lib/postgresql/*/bin | tail -n 1)',
  'data=/var/lib/postgresql/data',
  'if [ ! -s "$data/PG_VERSION" ]; then',
  '  printf %s "$CADRE_SERVICE_PASSWORD" > /tmp/pwfile',
  '  "$bin/initdb" -D "$data" -U "$CADRE_SERVICE_USER" --pwfile=/tmp/pwfile -A scram-sha-256 -E UTF8 --locale=C.UTF-8 >/tmp/initdb.log',
  '  rm -f /tmp/pwfile',
  '  echo "host all all all scram-sha-256" >> "$data/pg_hba.conf"',
  '  echo "CREATE DATABASE \\"$CADRE_SERVICE_DATABASE\\"" | "$bin/postgres" --single -D "$data" postgres >/dev/null',
  'fi',
  'exec "$bin/postgres" -D "$data" -c listen_addresses=* -c unix_socket_directories=/tmp',
].join('\n');

const mysqlStart = [
  'set -e',
  'data=/var/lib/mysql',
  'if [ ! -d "$data/mysql" ]; then mariadb-install-db --datadir="$data" --skip-test-db --auth-root-authentication-method=socket >/tmp/install-db.log; fi',
  // The init file runs at every start: idempotent statements only.
  'cat > /tmp/init.sql <<EOF',
  'CREATE DATABASE IF NOT EXISTS \\`$CADRE_SERVICE_DATABASE\\`;',
  "CREATE USER IF NOT EXISTS '$CADRE_SERVICE_USER'@'%' IDENTIFIED BY '$CADRE_SERVICE_PASSWORD';",
  "GRANT ALL PRIVILEGES ON *.* TO '$CADRE_SERVICE_USER'@'%' WITH GRANT OPTION;",
  'EOF',
  'exec mariadbd --datadir="$data" --bind-address=0.0.0.0 --port=3306 --socket=/tmp/mysqld.sock --pid-file=/tmp/mysqld.pid --skip-name-resolve --init-file=/tmp/init.sql',
].join('\n');

const redisStart = 'exec redis-server --bind 0.0.0.0 --port 6379 --protected-mode no --dir /var/lib/redis --requirepass "$CADRE_SERVICE_PASSWORD" --save "" --appendonly no';

export const serviceCatalog: Record<ServiceName, ServiceDefinition> = {
  postgres: {
    name: 'postgres', title: 'PostgreSQL', packages: ['postgresql'], port: 5432, user: 'postgres', dataDir: '/var/lib/postgresql', start: postgresStart,
    health: 'pg_isready -q -h 127.0.0.1 -p 5432 -U "$CADRE_SERVICE_USER" -d "$CADRE_SERVICE_DATABASE"',
    env: (host, c) => {
      const url = `postgres://${c.user}:${c.password}@${host}:5432/${c.database}`;
      return {
        DATABASE_URL: url, POSTGRES_URL: url, PGHOST: host, PGPORT: '5432', PGUSER: c.user, PGPASSWORD: c.password, PGDATABASE: c.database,
        POSTGRES_HOST: host, POSTGRES_PORT: '5432', POSTGRES_USER: c.user, POSTGRES_PASSWORD: c.password, POSTGRES_DB: c.database,
      };
    },
  },
  mysql: {
    name: 'mysql', title: 'MySQL (MariaDB)', packages: ['mariadb-server'], port: 3306, user: 'mysql', dataDir: '/var/lib/mysql', start: mysqlStart,
    health: 'MYSQL_PWD="$CADRE_SERVICE_PASSWORD" mariadb-admin ping -h 127.0.0.1 -P 3306 -u "$CADRE_SERVICE_USER" --silent',
    env: (host, c) => ({
      MYSQL_URL: `mysql://${c.user}:${c.password}@${host}:3306/${c.database}`,
      MYSQL_HOST: host, MYSQL_PORT: '3306', MYSQL_USER: c.user, MYSQL_PASSWORD: c.password, MYSQL_DATABASE: c.database,
      DB_HOST: host, DB_PORT: '3306', DB_USER: c.user, DB_PASSWORD: c.password, DB_NAME: c.database,
    }),
  },
  redis: {
    name: 'redis', title: 'Redis', packages: ['redis-server'], port: 6379, user: 'redis', dataDir: '/var/lib/redis', start: redisStart,
    health: 'REDISCLI_AUTH="$CADRE_SERVICE_PASSWORD" redis-cli -h 127.0.0.1 -p 6379 ping | grep -q PONG',
    env: (host, c) => ({ REDIS_URL: `redis://:${c.password}@${host}:6379/0`, REDIS_HOST: host, REDIS_PORT: '6379', REDIS_PASSWORD: c.password }),
  },
};

const aliases: Record<string, ServiceName> = {
  postgres: 'postgres', postgresql: 'postgres', pg: 'postgres',
  mysql: 'mysql', mariadb: 'mysql',
  redis: 'redis',
};

/** Services people ask for that Debian does not package: what to say instead of starting them. */
export const unsupportedServices: Record<string, string> = {
  mongodb: 'MongoDB is not packaged by Debian (its license is not free software), and no container registry is reachable to pull its image, so cadre cannot run it beside the sandbox',
};
const unsupportedAliases: Record<string, string> = { mongodb: 'mongodb', mongo: 'mongodb' };

export const mongoRemedy = 'run the tests that need MongoDB on a machine with MongoDB (or point MONGODB_URL at a server the sandbox may reach with /vm-config --env and --allowed-domains); postgres, mysql and redis can run beside the sandbox';

/** The services named in `list` (comma-separated, aliases allowed, duplicates folded); an unknown or unpackaged one is a usage error. */
export function parseServiceList(list: string): ServiceName[] {
  const names = list.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
  const unpackaged = names.filter((name) => unsupportedAliases[name]);
  if (unpackaged.length) {
    throw new CadreError('vm.service-unavailable', `${unsupportedServices[unsupportedAliases[unpackaged[0]!]!]}.`, { remedy: mongoRemedy, exitCode: exitCodes.usage });
  }
  const unknown = names.filter((name) => !aliases[name]);
  if (unknown.length) {
    throw new CadreError('vm.unknown-service', `Unknown service${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`, {
      remedy: 'name services from postgres, mysql (MariaDB) and redis, e.g. /vm-config --services "postgres,redis"; --services "" runs none', exitCode: exitCodes.usage,
    });
  }
  return [...new Set(names.map((name) => aliases[name]!))];
}
