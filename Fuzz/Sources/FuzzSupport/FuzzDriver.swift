import CFuzzer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hands the process to libFuzzer. A SwiftPM executable has its own `main`, so libFuzzer's
/// is not linked; each target's `main` calls this with its per-input function instead.
public enum FuzzDriver {
    public static func run(_ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, body))
    }
}
