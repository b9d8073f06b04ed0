#!/bin/sh
# nvidia 런타임 핸들러가 로드됐는지 본다.
# 판정 기준은 디스크의 설정 파일이 아니라
# containerd 가 지금 들고 있는 설정(config dump)이다.
# 로드됐으면 0, 아니면(containerd 가 응답하지 않아도) 1.
if containerd config dump | grep -qF 'containerd.runtimes.nvidia'; then
  exit 0
fi
exit 1
