#!/usr/bin/env bash
# The hall's certificate authority and the tables' HTTPS certificates, with openssl:
#   systemd/make-cert.sh ca DIR "spring-open"            # DIR/ca.crt + DIR/ca.key, if absent
#   systemd/make-cert.sh table DIR CA_DIR NAME [HOST|IP ...]
#                                                        # DIR/NAME.crt + DIR/NAME.key, signed by
#                                                        # CA_DIR's CA, for those names/addresses
# One CA per hall (install-hall.sh makes it, as for the broker's TLS): a referee's phone trusts
# it once and every table's dashboard opens without a warning. A table installed on its own
# (install.sh without the hall's files) makes a CA of its own the same way.
# Table certificates last 825 days, the most iPhones accept, with serverAuth and the names in
# subjectAltName (phones ignore the CN). Keys are EC P-256, owner-only.
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
table)
    [ $# -ge 5 ] || die "usage: make-cert.sh table DIR CA_DIR NAME HOST|IP [HOST|IP ...]"
    dir=$2 ca=$3 name=$4
    shift 4
    [ -f "$ca/ca.crt" ] && [ -f "$ca/ca.key" ] || die "$ca: no ca.crt and ca.key (make-cert.sh ca)"
    case "$name" in */*|.*|"") die "$name: not a table name" ;; esac
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
    die "usage: make-cert.sh ca DIR HALL_NAME | make-cert.sh table DIR CA_DIR NAME HOST|IP..."
    ;;
esac
