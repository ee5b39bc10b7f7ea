#!/usr/bin/env bash
# Regenerates every file in certs/ with the openssl command line.
# FOR TESTING ONLY: these keys are published in this repository and protect nothing.
set -euo pipefail
cd "$(dirname "$0")"
days=3650

# Certificate authority.
openssl ecparam -name prime256v1 -genkey -noout -out ca.key.tmp
openssl pkcs8 -topk8 -nocrypt -in ca.key.tmp -out ca.key && rm ca.key.tmp
openssl req -x509 -new -key ca.key -sha256 -days "$days" -out ca.pem \
    -subj "/O=swift-apns-mock test CA (TESTING ONLY)/CN=swift-apns-mock Test Root CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"

issue() { # issue NAME SUBJECT EXTFILE
    openssl ecparam -name prime256v1 -genkey -noout -out "$1.key.tmp"
    openssl pkcs8 -topk8 -nocrypt -in "$1.key.tmp" -out "$1.key" && rm "$1.key.tmp"
    openssl req -new -key "$1.key" -subj "$2" -out "$1.csr"
    openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -sha256 \
        -days "$days" -extfile "$3" -out "$1.pem"
    rm "$1.csr" "$3"
}

cat > server.ext <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1,DNS:api.push.apple.com,DNS:api.sandbox.push.apple.com,DNS:api.development.push.apple.com
EXT
issue server "/O=swift-apns-mock (TESTING ONLY)/CN=localhost" server.ext

# Client certificate for mutual TLS, shaped like an APNs provider certificate:
# UID is the bundle ID, and Apple's extensions mark it for both environments.
cat > client.ext <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth
1.2.840.113635.100.6.3.1=ASN1:NULL
1.2.840.113635.100.6.3.2=ASN1:NULL
EXT
issue client "/UID=com.example.app/CN=Apple Push Services: com.example.app/OU=TEAM000001/O=swift-apns-mock (TESTING ONLY)/C=US" client.ext
rm -f ca.srl

# Two APNs-style auth keys (.p8 is PKCS#8 PEM of a P-256 key), with their public keys.
for kid in ABC123DEFG XYZ987WXYZ; do
    openssl ecparam -name prime256v1 -genkey -noout -out "AuthKey_$kid.tmp"
    openssl pkcs8 -topk8 -nocrypt -in "AuthKey_$kid.tmp" -out "AuthKey_$kid.p8"
    openssl ec -in "AuthKey_$kid.tmp" -pubout -out "AuthKey_$kid.pub.pem" 2>/dev/null
    rm "AuthKey_$kid.tmp"
done
echo "certs regenerated in $(pwd)"
