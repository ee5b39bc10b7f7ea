import APNsCapture
import FuzzSupport

// The capture's one reader, CaptureRecordDecoder, on lines of format versions 2 and 1 and on
// control-API answers holding records. A record it accepts is written again as a version 2
// line, which must decode to the same record (not always to the same bytes: the keys of
// `token.header` and `token.claims` come in no particular order, docs/capture-format.md).
//
// Input: one option byte (bit 0: a control-API answer, {"pushes":[...]}, else one line),
// then the text.

@main
enum FuzzCaptureTarget {
    static func main() { FuzzDriver.run(fuzzCapture) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCapture(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let options = input.byte()
    let text = input.rest()
    if options & 1 != 0 {
        guard let results = try? CaptureRecord.decodeRecords(inArrayMember: "pushes", of: text) else { return 0 }
        for case .success(let record) in results { checkRoundTrip(record) }
    } else if let record = try? CaptureRecord(decoding: text) {
        checkRoundTrip(record)
    }
    return 0
}

private func checkRoundTrip(_ record: CaptureRecord) {
    let line = record.encodedLine()
    fuzzCheck(line.last == UInt8(ascii: "\n"), "a capture line without its newline")
    do {
        let decoded = try CaptureRecord(decoding: Array(line.dropLast()))
        fuzzCheck(decoded == record, "a record written again decodes to another: \(String(decoding: line, as: UTF8.self))")
    } catch {
        fuzzCheck(false, "a record written again does not decode (\(error)): \(String(decoding: line, as: UTF8.self))")
    }
}
