/* launch.c - fork, seize, exec.
 *
 * The child waits on a pipe until the parent has seized it, so that the
 * exec is the first thing traced; a second, close-on-exec pipe carries the
 * errno of a failed exec back (EOF means the exec succeeded).
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procfs.h"

static void child_exec(char *const argv[], const sigset_t *mask, int closed_fds,
		       int go_fd, int err_fd)
{
	char go;
	int e;

	sigprocmask(SIG_SETMASK, mask, NULL);
	while (read(go_fd, &go, 1) < 0 && errno == EINTR)
		;
	close(go_fd);
	/* the command starts with the descriptors it was given, closed ones too */
	for (int fd = 0; fd <= 2; fd++)
		if (closed_fds & (1 << fd))
			close(fd);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

void launch_kill(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	for (;;) {
		if (waitpid(pid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return;
		/* e.g. its PTRACE_EVENT_EXIT stop: let it die */
		ptrace(PTRACE_CONT, pid, 0, 0);
	}
}

static int exec_failure(const char *cmd, int e, int *exit_status, struct error *err)
{
	if (e == ENOENT) {
		*exit_status = 127;
		return error_set(err, "cannot run '%s': command not found (check the name and $PATH)", cmd);
	}
	*exit_status = 126;
	return error_set(err, "cannot run '%s': %s (is it an executable file you may run?)",
			 cmd, strerror(e));
}

/* Wait for the exec stop, passing through any signal that comes first. */
static int wait_exec(pid_t pid, int *exit_status, struct error *err)
{
	int status;

	for (;;) {
		if (waitpid(pid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			*exit_status = 125;
			return error_set(err, "waiting for the target: %s", strerror(errno));
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			*exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			return error_set(err, "the target ended before it started (exit status %d)",
					 *exit_status);
		}
		if (status >> 16 == PTRACE_EVENT_EXEC)
			return 0;
		/* a signal-delivery stop before the exec: deliver it */
		ptrace(PTRACE_CONT, pid, 0, status >> 16 ? 0 : WSTOPSIG(status));
	}
}

/* PTRACE_SEIZE failed with e: say why, the likely reason first. */
static int seize_failure(pid_t pid, int e, struct error *err)
{
	pid_t tracer = procfs_read_tracer(pid);
	char comm[64];

	if (e == EPERM && tracer > 0) {
		procfs_read_comm(tracer, comm, sizeof(comm));
		return error_set(err, "cannot trace the target: it is already traced by process %d (%s), "
				 "which follows the sampler's children (run the sampler outside gdb, strace -f "
				 "or another sampler: a process has one tracer at most)",
				 (int)tracer, comm[0] ? comm : "?");
	}
	return error_set(err, "cannot trace the target: PTRACE_SEIZE: %s (ptrace may be forbidden here: check /proc/sys/kernel/yama/ptrace_scope, seccomp or container settings)",
			 strerror(e));
}

int launch_target(char *const argv[], const sigset_t *child_mask, int closed_fds, pid_t *pid,
		  int *exit_status, struct error *err)
{
	int go[2], fail[2], e = 0;
	ssize_t n;

	*exit_status = 125;
	if (pipe2(go, O_CLOEXEC) < 0)
		return error_set(err, "cannot create a pipe: %s", strerror(errno));
	if (pipe2(fail, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return error_set(err, "cannot create a pipe: %s", strerror(errno));
	}
	*pid = fork();
	if (*pid < 0) {
		e = errno;
		goto out_pipes;
	}
	if (*pid == 0) {
		close(go[1]);
		close(fail[0]);
		child_exec(argv, child_mask, closed_fds, go[0], fail[1]);
	}
	close(go[0]);
	close(fail[1]);
	if (ptrace(PTRACE_SEIZE, *pid, 0, LAUNCH_PTRACE_OPTIONS) < 0) {
		e = errno;
		close(go[1]);
		close(fail[0]);
		seize_failure(*pid, e, err);
		launch_kill(*pid);
		return -1;
	}
	close(go[1]);		/* the child may exec now */
	do
		n = read(fail[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(fail[0]);
	if (n == sizeof(e)) {
		launch_kill(*pid);
		return exec_failure(argv[0], e, exit_status, err);
	}
	if (wait_exec(*pid, exit_status, err) < 0)
		return -1;
	return 0;

out_pipes:
	close(go[0]);
	close(go[1]);
	close(fail[0]);
	close(fail[1]);
	return error_set(err, "cannot start the target: fork: %s", strerror(e));
}
