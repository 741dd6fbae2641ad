#!/usr/bin/env bash
# Sourced by the run and test commands: JDK 17 + Maven from Debian's packages when missing.
if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "mvn/javac missing and not root: install maven and openjdk-17-jdk-headless" >&2
    exit 1
  fi
  echo "[toolchain] installing maven and openjdk-17-jdk-headless" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null
  apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends maven openjdk-17-jdk-headless
fi
