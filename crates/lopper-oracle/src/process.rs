//! Process groups: how a run (a test, a transformation command, a generator) is waited
//! for and ended so that nothing it started outlives it, found through `/proc`.

use crate::{io_at, OracleError};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Waits up to `slice` for `child`, started at `started`: how it ended, once it has (a
/// `timeout` that passed is an end too); [`OracleError::Interrupted`] once `interrupt` is set.
/// The caller kills the process group afterwards ([`kill_group`]).
pub(crate) fn poll_child(
    child: &mut std::process::Child,
    started: Instant,
    timeout: Duration,
    interrupt: &AtomicBool,
    slice: Duration,
    dir: &Path,
) -> Result<Option<Ending>, OracleError> {
    let left = timeout.saturating_sub(started.elapsed());
    if left.is_zero() {
        return Ok(Some(Ending::TimedOut));
    }
    if interrupt.load(Ordering::SeqCst) {
        return Err(OracleError::Interrupted);
    }
    if let Some(s) = child.try_wait().map_err(io_at(dir))? {
        return Ok(Some(Ending::Exited(s)));
    }
    wait_for_exit(&[&*child], left.min(slice));
    Ok(child.try_wait().map_err(io_at(dir))?.map(Ending::Exited))
}

/// Blocks until one of `children` (started, not yet reaped) has exited, or `timeout` has
/// passed; reaps none of them. Sleeps in the kernel on the children's pidfds (Linux 5.3+),
/// so waiting costs no CPU and wakes the moment a test ends; where a pidfd cannot be had,
/// it sleeps at most 2 ms and the caller looks again.
pub(crate) fn wait_for_exit(children: &[&std::process::Child], timeout: Duration) {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    use rustix::process::{pidfd_open, PidfdFlags};
    let fds: Vec<_> = children.iter().filter_map(|c| pidfd_open(rustix::process::Pid::from_child(c), PidfdFlags::empty()).ok()).collect();
    if fds.len() < children.len() || fds.is_empty() {
        std::thread::sleep(timeout.min(Duration::from_millis(2)));
        return;
    }
    let mut polled: Vec<PollFd> = fds.iter().map(|f| PollFd::new(f, PollFlags::IN)).collect();
    let limit = Timespec::try_from(timeout).ok();
    // EINTR or any other error: the caller looks at its children again either way.
    let _ = poll(&mut polled, limit.as_ref());
}

/// How long a test's process group has between SIGTERM and SIGKILL to clean up after
/// itself (its own traps) when it is cancelled, timed out, or left processes behind.
pub const KILL_GRACE: Duration = Duration::from_millis(500);

/// Ends `child`'s run: its process group (itself, if still running, and any grandchild it
/// left behind) and, while it still runs, the process groups its descendants made for
/// themselves (GNU `timeout` puts itself and the command it times in a group of its own,
/// so a compiler under `timeout` would compile on after its test was cancelled): SIGTERM,
/// up to [`KILL_GRACE`] for the groups to go, then SIGKILL (ESRCH is fine), and reaps the
/// child. A test that has already ended left nothing to find its descendants by; its
/// own group is all there is to end.
pub(crate) fn kill_group(child: &mut std::process::Child) {
    let own = Pid::from_raw(child.id() as i32);
    let (groups, members) = if matches!(child.try_wait(), Ok(None)) { run_groups(own) } else { (vec![own], Vec::new()) };
    let mut signalled = false;
    for &g in &groups {
        signalled |= killpg(g, Signal::SIGTERM).is_ok();
    }
    if signalled {
        let until = Instant::now() + KILL_GRACE;
        loop {
            // Reap the child once it ends, so that its zombie does not count as alive.
            let _ = child.try_wait();
            if !any_alive(&groups, &members) || Instant::now() >= until {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    for &g in &groups {
        let _ = killpg(g, Signal::SIGKILL);
    }
    let _ = child.wait();
}

/// Process `pid`'s state, parent and process group, from `/proc/PID/stat`.
fn proc_stat(pid: i32) -> Option<(char, i32, i32)> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses.
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
    let state = fields.next()?.chars().next()?;
    Some((state, fields.next()?.parse().ok()?, fields.next()?.parse().ok()?))
}

/// The processes in `/proc`, by pid; `None` where `/proc` cannot be read.
fn procs() -> Option<impl Iterator<Item = i32>> {
    let dir = fs::read_dir("/proc").ok()?;
    Some(dir.flatten().filter_map(|e| e.file_name().to_str()?.parse().ok()))
}

/// The descendants of process `root`, from its threads' `/proc/PID/task/TID/children`
/// lists and theirs, recursively (a few reads per process, where `/proc` holds every
/// process of the machine); `None` where the kernel has no such lists (built without
/// `CONFIG_PROC_CHILDREN`). A process that has ended lists no children.
fn descendants(root: i32) -> Option<Vec<i32>> {
    let leader = PathBuf::from(format!("/proc/{root}/task/{root}"));
    if leader.exists() && !leader.join("children").exists() {
        return None;
    }
    let mut found = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        let Ok(tasks) = fs::read_dir(format!("/proc/{p}/task")) else { continue };
        for task in tasks.flatten() {
            let Ok(list) = fs::read_to_string(task.path().join("children")) else { continue };
            for child in list.split_whitespace().filter_map(|c| c.parse::<i32>().ok()) {
                if !found.contains(&child) {
                    found.push(child);
                    frontier.push(child);
                }
            }
        }
    }
    Some(found)
}

/// Process group `own` and the groups of the descendants of process `own` (its leader),
/// never lopper's own group; and the processes then in those groups that the snapshot
/// saw. The snapshot is of `own`'s descendants ([`descendants`]), or, where the kernel
/// cannot list children, of one pass over `/proc`; just `own` where `/proc` cannot be read.
fn run_groups(own: Pid) -> (Vec<Pid>, Vec<i32>) {
    let pids: Vec<i32> = match descendants(own.as_raw()) {
        Some(pids) => pids.into_iter().chain([own.as_raw()]).collect(),
        None => procs().into_iter().flatten().collect(),
    };
    let table: Vec<(i32, i32, i32)> = pids.into_iter().filter_map(|pid| proc_stat(pid).map(|(_, ppid, pgrp)| (pid, ppid, pgrp))).collect();
    let mine = nix::unistd::getpgrp().as_raw();
    let mut groups = vec![own.as_raw()];
    let mut frontier = vec![own.as_raw()];
    while let Some(parent) = frontier.pop() {
        for &(pid, ppid, pgrp) in &table {
            if ppid == parent && pid != parent {
                frontier.push(pid);
                if pgrp != mine && !groups.contains(&pgrp) {
                    groups.push(pgrp);
                }
            }
        }
    }
    let members = table.iter().filter(|p| groups.contains(&p.2)).map(|p| p.0).collect();
    (groups.into_iter().map(Pid::from_raw).collect(), members)
}

/// Whether any of process groups `groups` has a member that is not a zombie. A zombie is
/// dead already and waits only for its parent, or for init, to reap it; where init reaps
/// slowly (a container's), `srun`'s exited helper, or a test's `timeout` whose shell was
/// killed first, lingers as one, and waiting for it would cost [`KILL_GRACE`] per test.
/// `members`: processes known to have been in the groups, asked first (a few reads, where
/// the whole of `/proc` is many: hundreds of processes on a workstation). Only where a group
/// still has members and none of the known ones is left in it (alive or a zombie) is all
/// of `/proc` searched for the others; a process that joined a group after the snapshot
/// while a known zombie stays in it is not waited for (the SIGKILL that follows the grace
/// takes it). Where `/proc` cannot be read, any member counts.
fn any_alive(groups: &[Pid], members: &[i32]) -> bool {
    let left: Vec<i32> = groups.iter().filter(|&&g| killpg(g, None).is_ok()).map(|g| g.as_raw()).collect();
    if left.is_empty() {
        return false;
    }
    let mut explained = vec![false; left.len()];
    for pid in members {
        let Some((state, _, pgrp)) = proc_stat(*pid) else { continue };
        let Some(g) = left.iter().position(|&g| g == pgrp) else { continue };
        if state != 'Z' {
            return true;
        }
        explained[g] = true;
    }
    if explained.iter().all(|&e| e) {
        return false;
    }
    let alive = |(state, _, pgrp): (char, i32, i32)| left.contains(&pgrp) && state != 'Z';
    procs().is_none_or(|mut all| all.any(|pid| proc_stat(pid).is_some_and(alive)))
}

/// What went wrong with a command that did not succeed, for the user: `who` and how it
/// ended (time limit, exit status, signal), then the last lines of its standard error (in
/// the file `stderr`), joined by ` | `.
pub(crate) fn failure_message(who: &str, ending: Ending, timeout: Duration, stderr: &Path) -> String {
    let how = match ending {
        Ending::TimedOut => format!("did not finish within {} s", timeout.as_secs_f64()),
        Ending::Exited(s) => s.code().map_or("was killed by a signal".to_string(), |c| format!("exited with status {c}")),
    };
    let err = read_tail(stderr, 64 * 1024);
    let last: Vec<&str> = err.trim().lines().rev().take(5).collect();
    let last: Vec<&str> = last.into_iter().rev().collect();
    format!("{who} {how}{}", if last.is_empty() { String::new() } else { format!(": {}", last.join(" | ")) })
}

/// The last `max` bytes of the file at `path` (cut at a character boundary, invalid UTF-8
/// replaced), reading no more than that however large the file: what a run printed, kept
/// in its run directory, so lopper's memory does not grow with a test's output. Empty when
/// the file cannot be read.
pub(crate) fn read_tail(path: &Path, max: u64) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = fs::File::open(path) else { return String::new() };
    let len = f.metadata().map_or(0, |m| m.len());
    let mut bytes = Vec::with_capacity(len.min(max) as usize);
    if f.seek(SeekFrom::Start(len.saturating_sub(max))).is_err() || f.take(max).read_to_end(&mut bytes).is_err() {
        return String::new();
    }
    // A cut through a multi-byte character loses that character only.
    let start = if len > max { bytes.iter().position(|&b| b & 0xC0 != 0x80).unwrap_or(bytes.len()) } else { 0 };
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

/// Points the command's `TMPDIR` (and `TMP`, `TEMP`) into `run_dir/tmp`, so that what it
/// makes there (`mktemp -d`) goes with the run directory even when it is killed before its
/// own cleanup can run.
pub(crate) fn private_tmp(cmd: &mut Command, run_dir: &Path) -> Result<(), OracleError> {
    let tmp = run_dir.join("tmp");
    fs::create_dir(&tmp).map_err(io_at(&tmp))?;
    cmd.env("TMPDIR", &tmp).env("TMP", &tmp).env("TEMP", &tmp);
    Ok(())
}

/// Quotes a word (a path, a command line) for a POSIX shell: for commands lopper builds and
/// commands it prints for the user to paste.
pub fn shell_quote(word: &str) -> String {
    // try_quote fails only on NUL, which neither paths nor arguments hold.
    shlex::try_quote(word).map_or_else(|_| word.to_string(), |q| q.into_owned())
}

/// Whether an executable file starts as the kernel can run it: a `#!` line or an ELF header.
/// An unreadable file passes; running it will say why.
pub fn is_runnable(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    let Ok(n) = fs::File::open(path).and_then(|mut f| f.read(&mut head)) else { return true };
    head[..n].starts_with(b"#!") || head[..n].starts_with(b"\x7fELF")
}

/// How a run ended, before the criteria judge it.
#[derive(Clone, Copy, Debug)]
pub enum Ending {
    /// The process exited (or died of a signal) with this status.
    Exited(std::process::ExitStatus),
    /// It hit the time limit, or was cancelled, and was killed.
    TimedOut,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    #[test]
    fn a_runs_groups_are_found_by_walking_its_descendants() {
        // A test-like tree: a shell in its own group, a background sleep in that group, and
        // under a subshell a sleep in a group of its own (as GNU `timeout` makes one).
        let mut child =
            Command::new("sh").args(["-c", "sleep 30 & (perl -e 'setpgrp(0,0); exec \"sleep\", \"31\"'; true) & wait"]).process_group(0).spawn().unwrap();
        let own = Pid::from_raw(child.id() as i32);
        let t = Instant::now();
        let (groups, members) = loop {
            let (groups, members) = run_groups(own);
            if groups.len() == 2 && members.len() == 4 || t.elapsed() > Duration::from_secs(10) {
                break (groups, members);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let found = descendants(own.as_raw()).expect("this kernel lists children");
        kill_group(&mut child);
        assert_eq!(found.len(), 3, "the two sleeps and the subshell: {found:?}");
        assert_eq!(groups.len(), 2, "the shell's group and the one its child made: {groups:?}");
        assert_eq!(groups[0], own);
        assert!(members.contains(&own.as_raw()) && found.iter().all(|p| members.contains(p)), "{members:?} {found:?}");
        // Nothing of either group lives on (zombies waiting for init may).
        assert!(!any_alive(&groups, &members));
    }
}
