#!/usr/bin/env bash
# Regenerates the test material in certs/ with the openssl command line.
# FOR TESTING ONLY: these keys are published in this repository and protect nothing.
#
#   ./generate.sh          everything: CA, server and client certificates, auth keys
#   ./generate.sh client   only client.pem and client.key, signed by the existing ca.pem
#                          and ca.key; the CA, server certificate and auth keys stay as
#                          they are, so nothing that trusts or uses them needs to change
set -euo pipefail
cd "$(dirname "$0")"
days=3650

make_ca() {
    openssl ecparam -name prime256v1 -genkey -noout -out ca.key.tmp
    openssl pkcs8 -topk8 -nocrypt -in ca.key.tmp -out ca.key && rm ca.key.tmp
    openssl req -x509 -new -key ca.key -sha256 -days "$days" -out ca.pem \
        -subj "/O=swift-apns-mock test CA (TESTING ONLY)/CN=swift-apns-mock Test Root CA" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
}

issue() { # issue NAME SUBJECT EXTFILE: a new key and a certificate signed by ca.pem/ca.key
    openssl ecparam -name prime256v1 -genkey -noout -out "$1.key.tmp"
    openssl pkcs8 -topk8 -nocrypt -in "$1.key.tmp" -out "$1.key" && rm "$1.key.tmp"
    openssl req -new -key "$1.key" -subj "$2" -out "$1.csr"
    openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -sha256 \
        -days "$days" -extfile "$3" -out "$1.pem"
    rm -f "$1.csr" "$3" ca.srl
}

make_server() {
    cat > server.ext <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1,DNS:api.push.apple.com,DNS:api.sandbox.push.apple.com,DNS:api.development.push.apple.com
EXT
    issue server "/O=swift-apns-mock (TESTING ONLY)/CN=localhost" server.ext
}

# Client certificate for mutual TLS, shaped like Apple's "Apple Push Notification service
# SSL (Sandbox & Production)" certificate: the UID is the bundle ID, the environment
# extensions (.3.1 sandbox, .3.2 production) mark it for both, and the topics extension
# (.3.6) lists the app, its .voip and its .complication topic, each followed by a
# sequence naming its kind, as Apple issues it (and as CertificateTopicList reads it):
#   SEQUENCE { UTF8String "com.example.app", SEQUENCE { UTF8String "app" },
#              UTF8String "com.example.app.voip", SEQUENCE { UTF8String "voip" }, ... }
make_client() {
    cat > client.ext <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth
1.2.840.113635.100.6.3.1=ASN1:NULL
1.2.840.113635.100.6.3.2=ASN1:NULL
1.2.840.113635.100.6.3.6=ASN1:SEQUENCE:apns_topics

[apns_topics]
app=UTF8:com.example.app
app_kind=SEQUENCE:kind_app
voip=UTF8:com.example.app.voip
voip_kind=SEQUENCE:kind_voip
complication=UTF8:com.example.app.complication
complication_kind=SEQUENCE:kind_complication

[kind_app]
kind=UTF8:app

[kind_voip]
kind=UTF8:voip

[kind_complication]
kind=UTF8:complication
EXT
    issue client "/UID=com.example.app/CN=Apple Push Services: com.example.app/OU=TEAM000001/O=swift-apns-mock (TESTING ONLY)/C=US" client.ext
}

# Two APNs-style auth keys (.p8 is PKCS#8 PEM of a P-256 key), with their public keys.
make_auth_keys() {
    for kid in ABC123DEFG XYZ987WXYZ; do
        openssl ecparam -name prime256v1 -genkey -noout -out "AuthKey_$kid.tmp"
        openssl pkcs8 -topk8 -nocrypt -in "AuthKey_$kid.tmp" -out "AuthKey_$kid.p8"
        openssl ec -in "AuthKey_$kid.tmp" -pubout -out "AuthKey_$kid.pub.pem" 2>/dev/null
        rm "AuthKey_$kid.tmp"
    done
}

case "${1:-all}" in
all)
    make_ca
    make_server
    make_client
    make_auth_keys
    echo "certs regenerated in $(pwd)"
    ;;
client)
    make_client
    echo "client.pem and client.key re-issued by the existing CA in $(pwd)"
    ;;
*)
    echo "Error: unknown argument '$1'" >&2
    echo "Usage: generate.sh [all | client]" >&2
    exit 2
    ;;
esac
