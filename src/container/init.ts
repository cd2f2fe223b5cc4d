// The sandbox's PID 1: a small Perl init that the agent cannot read, write or trace, and that stops the container at its deadline.
import { writeFileAtomic } from '../store/atomic-write.js';

/** Where, inside the container, the host keeps the current deadline (epoch seconds): the gateway folder, mounted read-only. */
export const containerDeadlineFile = '/run/cadre/deadline';
/** Seconds past the deadline before the container stops itself, so that a running cadre stops it first, as a timeout. */
export const defaultDeadlineGraceSeconds = 30;
/** The exit code of a container that stopped itself at its deadline (as `timeout` reports it). */
export const deadlineExitCode = 124;

/**
 * Perl is in every Debian base (perl-base), and unlike Node or a shell it can call prctl: PR_SET_DUMPABLE 0 makes
 * /proc/1 owned by root, so the agent (same uid) can neither open /proc/1/fd/1 (the container's log), nor read its
 * memory or environment, nor ptrace it to stop the timer. Signals from inside the container reach PID 1 only where
 * it set a handler, and every handler here ends the container. The init reaps orphans, passes its main command's
 * exit code on, and re-reads the deadline file every two seconds, so a deadline moved by /vm-config holds too.
 */
const initScript = String.raw`
use strict; use warnings; use POSIX ();
my ($deadline, $grace, $file, @command) = @ARGV;
my %prctl = (x86_64 => 157, aarch64 => 167, ppc64le => 171, s390x => 172, riscv64 => 167);
my $machine = (POSIX::uname())[4];
syscall($prctl{$machine}, 4, 0, 0, 0, 0) if exists $prctl{$machine};
my $child = fork() // die "cadre-init: cannot start @command: $!\n";
if ($child == 0) { exec { $command[0] } @command; print STDERR "cadre-init: cannot run $command[0]: $!\n"; POSIX::_exit(127); }
my $stopping = 0;
$SIG{TERM} = $SIG{INT} = $SIG{HUP} = sub { $stopping = 1; kill 'TERM', $child; };
# A handler, even an empty one, makes sleep return when a child ends: the command's exit is seen at once.
$SIG{CHLD} = sub { };
while (1) {
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
    next if $pid != $child;
    exit 0 if $stopping;
    exit(POSIX::WIFEXITED($?) ? POSIX::WEXITSTATUS($?) : 128 + POSIX::WTERMSIG($?));
  }
  if (open(my $in, '<', $file)) { my $line = <$in> // ''; $deadline = $1 if $line =~ /^(\d{9,12})\s*$/; close $in; }
  if (time() >= $deadline + $grace) {
    print "cadre-init: the container passed its deadline (" . gmtime($deadline) . " UTC) and stops itself.\n";
    kill 'TERM', $child;
    exit 124;
  }
  sleep 2;
}
`;

/**
 * The container's entrypoint: the init, replacing the image's own (tini, which the agent could write to and trace), which
 * runs the command and stops everything `graceSeconds` after `deadline` (epoch ms).
 */
export function initEntrypoint(input: { deadline: number; graceSeconds?: number }): string[] {
  const seconds = Math.ceil(input.deadline / 1000);
  return ['perl', '-e', initScript, String(seconds), String(input.graceSeconds ?? defaultDeadlineGraceSeconds), containerDeadlineFile];
}

/** Writes the deadline the container's init enforces into `folder` (mounted at /run/cadre): read within two seconds. */
export async function writeDeadlineFile(folder: string, deadline: number): Promise<void> {
  await writeFileAtomic(`${folder}/deadline`, `${Math.ceil(deadline / 1000)}\n`, { mode: 0o644 });
}
