import CFuzzDriver
import Foundation

/// Each fuzzer's main.swift: SwiftPM links an executable's top-level code as its `main`
/// (on Linux it aliases `main` to `<Target>_main`), so libFuzzer's own `main` is not used;
/// this calls libFuzzer's driver instead, with the same command line.
public enum FuzzDriver {
    public static func run(_ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, target))
    }
}
