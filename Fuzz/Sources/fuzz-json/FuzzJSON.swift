import FuzzSupport
import StrictJSON

// StrictJSON's parser and its outline, checked against each other: `JSONParser.outline`
// promises to accept and reject exactly the documents `parse` does, with the same failure,
// and to read its one member as `parse` would. An accepted document also survives
// JSONWriter and a second parse unchanged, and UTF8Validation agrees with the standard
// library.
//
// Input: two option bytes (the depth limit, which member to outline), then the document.

private let memberNames = ["aps", "", "alert", "a", "\u{212A}", "K", "caf\u{E9}", "cafe\u{301}"]

@main
enum FuzzJSONTarget {
    static func main() { FuzzDriver.run(fuzzJSON) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let depth = Int(input.byte() % 40)
    let member = memberNames[Int(input.byte()) % memberNames.count]
    let document = input.rest()

    let parsed = Result { () throws(JSONParser.Failure) in try JSONParser.parse(document, maximumDepth: depth) }
    let outlined = Result { () throws(JSONParser.Failure) in try JSONParser.outline(document, maximumDepth: depth, member: member) }
    switch (parsed, outlined) {
    case (.failure(let parseFailure), .failure(let outlineFailure)):
        fuzzCheck(parseFailure == outlineFailure, "parse and outline fail differently: \(parseFailure) / \(outlineFailure)")
    case (.success(let value), .success(let outline)):
        fuzzCheck(outline.typeName == value.typeName, "outline says \(outline.typeName), parse \(value.typeName)")
        let expected: JSONShallowValue? = if case .object(let members) = value { members[member].map(JSONShallowValue.init) } else { nil }
        fuzzCheck(normalized(outline.member) == normalized(expected), "outline read \(member) as \(String(describing: outline.member)), parse as \(String(describing: expected))")
        if case .object(let members) = value, case .object(let fields)? = members[member] {
            let outlineFields = outline.memberFields.map { Dictionary(uniqueKeysWithValues: $0.members.map { ($0.key, normalized($0.value)) }) }
            let parsedFields = Dictionary(uniqueKeysWithValues: JSONShallowObject(fields).members.map { ($0.key, normalized($0.value)) })
            fuzzCheck(outlineFields == parsedFields, "outline and parse read \(member)'s fields differently")
        }
        var written: [UInt8] = []
        JSONWriter.write(value, into: &written)
        let reparsed = Result { () throws(JSONParser.Failure) in try JSONParser.parse(written, maximumDepth: depth) }
        fuzzCheck(reparsed == .success(value), "JSONWriter's text of an accepted document does not parse back to it")
    case (.success, .failure(let failure)):
        fuzzCheck(false, "parse accepts what outline rejects: \(failure)")
    case (.failure(let failure), .success):
        fuzzCheck(false, "outline accepts what parse rejects: \(failure)")
    }

    fuzzCheck(UTF8Validation.isValid(document) == (String(validating: document, as: UTF8.self) != nil),
          "UTF8Validation disagrees with String(validating:)")
    return 0
}

/// Object keys in a fixed order: parse's dictionaries have none, outline keeps the text's.
private func normalized(_ value: JSONShallowValue?) -> JSONShallowValue? {
    if case .object(let keys)? = value { return .object(keys: keys.sorted()) }
    return value
}
