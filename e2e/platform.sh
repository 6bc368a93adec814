# Sourced by the e2e install scripts: sets `platform` to this machine's npm platform suffix
# (linux-x64, linux-arm64, darwin-arm64, darwin-x64), or exits 2 naming the script ($0).
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64 ;;
  Linux-aarch64) platform=linux-arm64 ;;
  Darwin-arm64) platform=darwin-arm64 ;;
  Darwin-x86_64) platform=darwin-x64 ;;
  *) echo "$(basename "$0" .sh): unsupported platform $(uname -s)-$(uname -m)" >&2; exit 2 ;;
esac
