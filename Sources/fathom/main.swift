// fathom: parse -> library call -> write -> exit code. No numerics here.
import Fathom
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    try CLI.run(arguments)
    exit(0)
} catch let error as CLIError {
    FileHandle.standardError.write(Data(("fathom: " + error.message + "\n").utf8))
    exit(error.exitCode)
} catch {
    FileHandle.standardError.write(Data(("fathom: " + CLIError(error).message + "\n").utf8))
    exit(CLIError(error).exitCode)
}
