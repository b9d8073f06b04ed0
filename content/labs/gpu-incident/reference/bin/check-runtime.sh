#!/bin/sh
# containerd 가 합친 설정에 nvidia 런타임 핸들러가 있는지 본다.
# 판정 기준은 주 설정 한 파일이 아니라, containerd 가
# 주 설정과 imports 를 합친 결과(config dump)다.
# dump 는 디스크의 파일을 다시 읽은 것이고 실행 중인 데몬의
# 설정은 아니다: 재시작까지 보려면 이 스크립트 밖에서 crictl info 를
# 본다(이 실습의 채점 실행에는 crictl 이 없다).
# nvidia 핸들러가 있으면 0, 없으면(dump 가 비어도) 1.
if containerd config dump | grep -qF 'containerd.runtimes.nvidia'; then
  exit 0
fi
exit 1
