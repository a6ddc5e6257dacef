// fathom: parse -> library call -> write -> exit code. No numerics here.
import Fathom
import Foundation

Cancellation.install()
let arguments = Array(CommandLine.arguments.dropFirst())
var failure: CLIError?
do {
    try CLI.run(arguments)
} catch let error as RenderError where error == .cancelled && Cancellation.receivedSignal != nil {
    failure = Cancellation.error(Cancellation.receivedSignal!)
} catch {
    failure = CLIError(error)
}
// A command's report on standard output is part of its result: a write error there (a full
// disk, /dev/full, a file size limit) fails the command, whether the final flush met it or an
// earlier write did.
if let code = StandardOutput.firstError ?? (fflush(nil) != 0 ? errno : nil), failure == nil {
    // A reader that went away (`fathom presets | head`) ends the command as SIGPIPE would, quietly.
    if code == EPIPE { exit(128 + SIGPIPE) }
    failure = CLIError(exitCode: 74, message: "cannot write to standard output: \(String(cString: strerror(code)))")
}
if let failure {
    FileHandle.standardError.write(Data(("fathom: " + failure.line + "\n").utf8))
    exit(failure.exitCode)
}
exit(0)
