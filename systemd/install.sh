#!/usr/bin/env bash
# Install riichi-referee as a service on a Raspberry Pi (Raspberry Pi OS / Debian 12, as root):
#   sudo systemd/install.sh              # asks for the referee PIN
#   sudo RIICHI_PIN=1234 systemd/install.sh
# Creates the `riichi` user (groups gpio, video), a venv in /opt/riichi-referee/venv with
# --system-site-packages (picamera2 and lgpio come from apt), /etc/riichi-referee/table.toml
# (kept if present), the PIN hash, and enables both units. Safe to run again to upgrade.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
prefix=${PREFIX:-/opt/riichi-referee}
etc=${ETC:-/etc/riichi-referee}
user=${RIICHI_USER:-riichi}
unitdir=${UNITDIR:-/etc/systemd/system}

die() { echo "install.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root (sudo $0)"
command -v systemctl >/dev/null || die "systemd is required"

if command -v apt-get >/dev/null; then
    pkgs=(python3 python3-venv)
    # The camera and GPIO libraries are built for the Pi's kernel and come from apt.
    apt-cache show python3-picamera2 >/dev/null 2>&1 && pkgs+=(python3-picamera2)
    apt-cache show python3-lgpio >/dev/null 2>&1 && pkgs+=(python3-lgpio)
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${pkgs[@]}"
fi

for group in gpio video; do
    getent group "$group" >/dev/null || groupadd --system "$group"
done
if ! id "$user" >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/riichi-referee --no-create-home \
        --shell /usr/sbin/nologin --user-group "$user"
fi
usermod -a -G gpio,video "$user"

# The source tree the units point at (web/gunicorn.conf.py, README), then the venv.
install -d -m 0755 "$prefix"
rm -rf "$prefix/src.new"
mkdir "$prefix/src.new"
tar -C "$src" --exclude=.git --exclude=.venv --exclude='__pycache__' --exclude='*.sqlite*' \
    -cf - . | tar -C "$prefix/src.new" -xf -
rm -rf "$prefix/src"
mv "$prefix/src.new" "$prefix/src"
if [ ! -x "$prefix/venv/bin/python" ]; then
    python3 -m venv --system-site-packages "$prefix/venv"
fi
"$prefix/venv/bin/python" -m pip install --quiet --upgrade pip
"$prefix/venv/bin/python" -m pip install --quiet "$prefix/src"

install -d -m 0750 -g "$user" "$etc"
if [ ! -f "$etc/table.toml" ]; then
    {
        cat "$src/systemd/table.toml"
        for sample in "$src/hardware/table.toml" "$src/vision/table.toml"; do
            if [ -f "$sample" ]; then
                echo
                # Only the sample's own sections: [service]/[journal]/[web] come from above.
                awk '/^\[(service|journal|web)\]/{skip=1; next} /^\[/{skip=0} !skip' "$sample"
            fi
        done
    } > "$etc/table.toml"
    chgrp "$user" "$etc/table.toml"
    chmod 0640 "$etc/table.toml"
    echo "install.sh: wrote $etc/table.toml - check the button pins and camera before a game"
fi
"$prefix/venv/bin/python" -c "from table.config import load_config; load_config('$etc/table.toml')" \
    || die "$etc/table.toml is not valid (see above)"

if [ ! -f "$etc/pin.hash" ]; then
    if [ -n "${RIICHI_PIN:-}" ]; then
        printf '%s\n' "$RIICHI_PIN" | "$prefix/venv/bin/riichi-referee" set-pin --stdin \
            --file "$etc/pin.hash"
    else
        "$prefix/venv/bin/riichi-referee" set-pin --file "$etc/pin.hash"
    fi
    chgrp "$user" "$etc/pin.hash"
    chmod 0640 "$etc/pin.hash"
fi

install -m 0644 "$src/systemd/riichi-referee.service" "$unitdir/riichi-referee.service"
install -m 0644 "$src/systemd/riichi-referee-web.service" "$unitdir/riichi-referee-web.service"
systemctl daemon-reload
systemctl enable --now riichi-referee.service riichi-referee-web.service
echo "install.sh: done. Status: systemctl status riichi-referee; dashboard on port 8000"
