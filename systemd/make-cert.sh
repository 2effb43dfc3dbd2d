#!/usr/bin/env bash
# The hall's certificate authority and the certificates it signs, with openssl:
#   systemd/make-cert.sh ca DIR "spring-open"            # DIR/ca.crt + DIR/ca.key, if absent
#   systemd/make-cert.sh server DIR CA_DIR NAME HOST|IP [HOST|IP ...]
#                                                        # DIR/NAME.crt + DIR/NAME.key, signed by
#                                                        # CA_DIR's CA, for those names/addresses
#   (`table` is the same as `server`: a table's dashboard is one of the servers.)
# One CA per hall, made once by install-hall.sh: it signs every table's dashboard, the hall's
# page and the hall's Mosquitto (MQTT over TLS), so a referee's phone trusts it once and every
# page opens without a warning, and a table trusts it for the broker. A table installed on its
# own (install.sh without the hall's files) makes a CA of its own the same way.
# Server certificates last 825 days, the most iPhones accept, with serverAuth and the names in
# subjectAltName (phones, paho and Mosquitto's clients check those, not the CN). Keys are EC
# P-256, owner-only.
set -euo pipefail
die() { echo "make-cert.sh: $*" >&2; exit 2; }
command -v openssl >/dev/null || die "openssl is required (apt-get install openssl)"
umask 077

case "${1:-}" in
ca)
    [ $# -eq 3 ] || die "usage: make-cert.sh ca DIR HALL_NAME"
    dir=$2 name=$3
    mkdir -p "$dir"
    if [ -f "$dir/ca.crt" ] && [ -f "$dir/ca.key" ]; then
        exit 0  # kept: every phone that trusts it would have to trust a new one
    fi
    openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 \
        -days 3650 -subj "/O=riichi-referee/CN=riichi-referee hall CA ($name)" \
        -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -addext "subjectKeyIdentifier=hash" \
        -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
    chmod 0644 "$dir/ca.crt"
    ;;
server|table)
    [ $# -ge 5 ] || die "usage: make-cert.sh $1 DIR CA_DIR NAME HOST|IP [HOST|IP ...]"
    dir=$2 ca=$3 name=$4
    shift 4
    [ -f "$ca/ca.crt" ] && [ -f "$ca/ca.key" ] || die "$ca: no ca.crt and ca.key (make-cert.sh ca)"
    case "$name" in */*|.*|"") die "$name: not a file name for the certificate" ;; esac
    san=""
    for host in "$@"; do
        if [[ $host =~ ^[0-9.]+$ || $host == *:* ]]; then
            san+="${san:+,}IP:$host"
        else
            san+="${san:+,}DNS:$host"
        fi
    done
    mkdir -p "$dir"
    ext=$(mktemp)
    trap 'rm -f "$ext" "$dir/$name.csr"' EXIT
    printf '%s\n' "basicConstraints=critical,CA:FALSE" \
        "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" \
        "subjectAltName=$san" "authorityKeyIdentifier=keyid" > "$ext"
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 \
        -subj "/O=riichi-referee/CN=$name" -keyout "$dir/$name.key" -out "$dir/$name.csr" \
        2>/dev/null
    openssl x509 -req -in "$dir/$name.csr" -CA "$ca/ca.crt" -CAkey "$ca/ca.key" \
        -set_serial "0x$(openssl rand -hex 16)" -days 825 -sha256 -extfile "$ext" \
        -out "$dir/$name.crt" 2>/dev/null
    chmod 0644 "$dir/$name.crt"
    ;;
*)
    die "usage: make-cert.sh ca DIR HALL_NAME | make-cert.sh server DIR CA_DIR NAME HOST|IP..."
    ;;
esac
