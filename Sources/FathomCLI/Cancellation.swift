import Dispatch
import Fathom
import Foundation

/// Signals (Documentation/Reliability.md, "Signals"):
/// - SIGINT, SIGTERM and SIGHUP cancel the command: the first one cancels its `RenderControl`
///   (the work stops at its next check, its temporary files are removed as it unwinds, and the
///   command exits with 128 + the signal's number after one line "fathom: cancelled (SIGINT)").
///   Whatever the command is doing (a search that does not poll, an open of a FIFO that waits
///   for a reader, ffmpeg), it has ended within a second: past `deadline`, or at a second
///   signal, or at once when the command holds no control, the temporary files are removed,
///   helper processes stopped and the process exits the same way, though never between two
///   renames of a commit.
/// - Every other signal whose default is to end the process and that a process can catch
///   (SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGPWR, SIGSTKFLT)
///   removes the temporary files and stops the helpers, then ends the process by that signal
///   with its default action (SIGQUIT's core dump where enabled), without a backtrace.
/// - SIGPIPE and SIGXFSZ are ignored: a closed pipe or a file size limit fails the write that
///   met it (EPIPE, EFBIG), so the command reports it and cleans up.
enum Cancellation {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var controls: [RenderControl] = []
    nonisolated(unsafe) private static var received: Int32 = 0
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    private static let queue = DispatchQueue(label: "fathom.signals")

    /// How long a cancelled command may take to unwind before the process exits anyway.
    static let deadline: DispatchTimeInterval = .milliseconds(750)

    static let names: [Int32: String] = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"]

    /// The signals that end the process after its temporary files are removed.
    static var endingSignals: [Int32] {
        var all = [SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU]
        #if os(Linux)
        all += [SIGPWR, SIGSTKFLT]
        #endif
        return all
    }

    /// Takes over the signals (call once, first thing).
    static func install() {
        // A closed pipe is an error of the write (EPIPE), a file size limit one too (EFBIG),
        // so the temporary files go too.
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        // A parent may hand down signals blocked: a signal that should end the process must
        // reach it.
        var set = sigset_t()
        sigemptyset(&set)
        for signo in endingSignals + [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, signo) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        for signo in [SIGINT, SIGTERM, SIGHUP] {
            watch(signo) { receive(signo) }
        }
        for signo in endingSignals {
            watch(signo) { TemporaryFiles.exitBySignal(signo) }
        }
    }

    private static func watch(_ signo: Int32, _ handler: @escaping @Sendable () -> Void) {
        signal(signo, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signo, queue: queue)
        source.setEventHandler(handler: handler)
        source.resume()
        sources.append(source)
    }

    /// A control for the command's work, cancelled by the signals.
    static func control(progress: (@Sendable (Double) -> Void)? = nil) -> RenderControl {
        let control = RenderControl(progress: progress)
        lock.lock()
        controls.append(control)
        let cancelled = received != 0
        lock.unlock()
        if cancelled { control.cancel() }
        return control
    }

    /// The signal that cancelled the command (nil: none).
    static var receivedSignal: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return received == 0 ? nil : received
    }

    /// The line and exit code of a command a signal cancelled.
    static func error(_ signo: Int32) -> CLIError {
        CLIError(exitCode: 128 + signo, message: "cancelled (\(names[signo] ?? "signal \(signo)"))")
    }

    private static func receive(_ signo: Int32) {
        lock.lock()
        let first = received == 0
        if first { received = signo }
        let watched = controls
        lock.unlock()
        let e = error(first ? signo : (receivedSignal ?? signo))
        if first && !watched.isEmpty {
            watched.forEach { $0.cancel() }
            // The work unwinds and main exits; past the deadline the process exits anyway.
            queue.asyncAfter(deadline: .now() + deadline) {
                TemporaryFiles.exitNow(e.exitCode, line: "\nfathom: " + e.message + "\n")
            }
            return
        }
        TemporaryFiles.exitNow(e.exitCode, line: "\nfathom: " + e.message + "\n")
    }
}
