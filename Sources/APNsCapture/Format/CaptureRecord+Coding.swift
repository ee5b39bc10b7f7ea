import StrictJSON

extension CaptureRecord {
    /// The record as one line of the capture format (version 2), newline included: what the
    /// store writes to the file and lists through the control API.
    public func encodedLine() -> [UInt8] {
        CaptureRecordEncoder.line(self)
    }

    /// Decodes one record from its JSON text: a capture line (version 2 or 1) without its
    /// newline, or one element of the control API's `pushes`.
    ///
    /// - Throws: ``CaptureDecodingError`` naming the field; its kind tells damage from a
    ///   record of another version or kind.
    public init(decoding json: [UInt8]) throws(CaptureDecodingError) {
        self = try CaptureRecordDecoder.decode(json)
    }

    /// Decodes the records in the array member `key` of a JSON object: the control API's
    /// `{"count":N,"pushes":[…]}` answers hold records exactly as the file does. Each record
    /// is decoded on its own, so one that does not decode leaves the others readable.
    ///
    /// ```swift
    /// for result in try CaptureRecord.decodeRecords(inArrayMember: "pushes", of: answer.body) {
    ///     let record = try result.get()
    /// }
    /// ```
    ///
    /// - Throws: ``CaptureDecodingError`` when `json` is not a JSON object with such an array.
    public static func decodeRecords(
        inArrayMember key: String, of json: [UInt8]
    ) throws(CaptureDecodingError) -> [Result<CaptureRecord, CaptureDecodingError>] {
        try json.withUnsafeBufferPointer { text throws(CaptureDecodingError) in
            do {
                // Checked whole first: the scan that finds the records trusts the text.
                let outline = try JSONParser.outline(text, maximumDepth: CaptureFormat.maximumLineDepth + 2, member: key)
                guard outline.isObject else { throw CaptureDecodingError("the answer is not a JSON object") }
            } catch let error as CaptureDecodingError {
                throw error
            } catch {
                throw CaptureDecodingError("not JSON: \(error)")
            }
            guard let ranges = CaptureLineScan.elementRanges(in: text, arrayMember: key) else {
                throw CaptureDecodingError("the answer has no \(CaptureDecodingError.quoted(key)) array")
            }
            return ranges.map { range in
                Result { () throws(CaptureDecodingError) in try CaptureRecordDecoder.decode(UnsafeBufferPointer(rebasing: text[range])) }
            }
        }
    }
}
