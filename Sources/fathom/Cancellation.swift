import Dispatch
import Fathom
import Foundation

/// SIGINT, SIGTERM and SIGHUP cancel the command: the first one cancels its `RenderControl`
/// (the work stops at its next check, its temporary files are removed as it unwinds, and the
/// command exits with 128 + the signal's number after one line "fathom: cancelled (SIGINT)");
/// a command that holds no control, or a second signal, removes the temporary files at once
/// and exits the same way. SIGQUIT keeps its default meaning (the process ends with a core
/// dump, without the Swift runtime's backtrace); SIGPIPE is ignored, so that a closed pipe
/// fails the write that met it and the command cleans up. Documentation/Reliability.md.
enum Cancellation {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var controls: [RenderControl] = []
    nonisolated(unsafe) private static var received: Int32 = 0
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    private static let queue = DispatchQueue(label: "fathom.signals")

    static let names: [Int32: String] = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"]

    /// Takes over the three signals (call once, first thing).
    static func install() {
        Glibc.signal(SIGQUIT, SIG_DFL)
        // A parent may hand down SIGQUIT blocked: its default meaning needs it unblocked.
        var quit = sigset_t()
        sigemptyset(&quit)
        sigaddset(&quit, SIGQUIT)
        pthread_sigmask(SIG_UNBLOCK, &quit, nil)
        // A closed pipe is an error of the write (EPIPE), so the temporary files go too.
        Glibc.signal(SIGPIPE, SIG_IGN)
        for signo in [SIGINT, SIGTERM, SIGHUP] {
            Glibc.signal(signo, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: queue)
            source.setEventHandler { receive(signo) }
            source.resume()
            sources.append(source)
        }
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
        if first && !watched.isEmpty {
            watched.forEach { $0.cancel() }
            return
        }
        TemporaryFiles.removeAll()
        let e = error(first ? signo : received)
        FileHandle.standardError.write(Data(("\nfathom: " + e.message + "\n").utf8))
        _exit(e.exitCode)
    }
}
